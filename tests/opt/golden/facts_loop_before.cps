main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let numbers: array<int> = array_make(4, 5)
    let r: int = call sum(numbers) @prog.fl:5:13
    let u: unit = print_int(r)
    jump (ret main)(u)

fun sum(a: array<int>) -> int in main = callc sum.entry() ret (ret sum)
  cont sum.entry() =
    let length: int = array_length(a)
    let last: int = sub_int(length, 1)
    let c.1: bool = le_int(0, last)
    br c.1, for, for_done.from
  cont for_done.from() =
    jump for_done(0)
  cont for() =
    jump for_body(0, 0)
  cont for_body(i: int, s: int) =
    let c.2: bool = ge_int(i, 0)
    let c.3: bool = lt_int(i, length)
    let in_bounds: bool = and_bool(c.2, c.3)
    br in_bounds, ok, fail
  cont fail() =
    let Invalid_argument: exn = block(exception("Invalid_argument", "s"), "index out of bounds")
    jump (exn sum)(Invalid_argument)
  cont ok() =
    let t.4: int = array_unsafe_get(a, i)
    let s.1: int = add_int(s, t.4)
    let c.4: bool = eq_int(i, last)
    br c.4, for_done.from.1, for_next
  cont for_next() =
    let i.1: int = add_int(i, 1)
    jump for_body(i.1, s.1)
  cont for_done.from.1() =
    jump for_done(s.1)
  cont for_done(s.2: int) =
    jump (ret sum)(s.2)
