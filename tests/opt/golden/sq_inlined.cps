main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(3) @prog.fl:3:22
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f(a: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    jump sq.entry.1()
  cont sq.entry.1() =
    let y.1: int = mul_int(a, a)
    jump sq.ret(y.1)
  cont sq.ret(s: int) =
    let t: int = add_int(s, 1)
    jump (ret f)(t)

fun sq(x: int) -> int in main = callc sq.entry() ret (ret sq)
  cont sq.entry() =
    let y: int = mul_int(x, x)
    jump (ret sq)(y)
