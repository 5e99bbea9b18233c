main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(3) @prog.fl:3:22
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f(a: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    let y.1: int = mul_int(a, a)
    let t: int = add_int(y.1, 1)
    jump (ret f)(t)
