main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let add_closure: (int -> (int -> int)) = closure add.curry1() full add
    let sum: int = apply add_closure(1, 2)
    let first: (int -> int) = apply add_closure(10)
    let pair_closure: (int -> (int -> int)) = closure pair()
    let both: int = apply pair_closure(3, 4)
    let adder_closure: (int -> (int -> (int -> int))) = closure adder.curry1() full adder
    let three: int = apply adder_closure(1, 2, 3)
    let v: int = apply first(5)
    let tails: int = call tails(sum)
    let all.1: int = add_int(v, both)
    let all: int = add_int(all.1, three)
    let printed: unit = print_int(all)
    let u: unit = print_int(tails)
    jump (ret main)(u)

fun add(a: int, b: int) -> int in main = callc add.entry() ret (ret add)
  cont add.entry() =
    let s: int = add_int(a, b)
    jump (ret add)(s)

fun add.curry1(x1: int) -> (int -> int) in main = callc add.curry1.entry() ret (ret add.curry1)
  cont add.curry1.entry() =
    let c: (int -> int) = closure add.curry2()
    jump (ret add.curry1)(c)

fun add.curry2(x2: int) -> int in add.curry1 = callc add.curry2.entry() ret (ret add.curry2)
  cont add.curry2.entry() =
    tailcall add(x1, x2)

fun adder(m: int, m2: int) -> (int -> int) in main = callc adder.entry() ret (ret adder)
  cont adder.entry() =
    let mn: int = add_int(m, m2)
    let adding: (int -> int) = closure adder.inner()
    jump (ret adder)(adding)

fun adder.inner(z: int) -> int in adder = callc adder.inner.entry() ret (ret adder.inner)
  cont adder.inner.entry() =
    let mnz: int = add_int(mn, z)
    jump (ret adder.inner)(mnz)

fun adder.curry1(y1: int) -> (int -> (int -> int)) in main = callc adder.curry1.entry() ret (ret adder.curry1)
  cont adder.curry1.entry() =
    let c.1: (int -> (int -> int)) = closure adder.curry2()
    jump (ret adder.curry1)(c.1)

fun adder.curry2(y2: int) -> (int -> int) in adder.curry1 = callc adder.curry2.entry() ret (ret adder.curry2)
  cont adder.curry2.entry() =
    tailcall adder(y1, y2)

fun pair(p: int) -> (int -> int) in main = callc pair.entry() ret (ret pair)
  cont pair.entry() =
    let twice: int = mul_int(p, 2)
    let inner: (int -> int) = closure pair.inner()
    jump (ret pair)(inner)

fun pair.inner(q: int) -> int in pair = callc pair.inner.entry() ret (ret pair.inner)
  cont pair.inner.entry() =
    let t: int = sub_int(twice, q)
    jump (ret pair.inner)(t)

fun tails(n: int) -> int in main = callc tails.entry() ret (ret tails)
  cont tails.entry() =
    br true, saturated, split
  cont split() =
    tailapply pair_closure(n, 2)
  cont saturated() =
    tailapply add_closure(n, 2)
