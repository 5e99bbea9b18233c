main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let k: int = add_int(1, 2)
    let c: (int -> int) = closure add_k()
    let r: int = call apply_twice(c, 10)
    let u: unit = print_int(r)
    jump (ret main)(u)

fun apply_twice(f: (int -> int), x: int) -> int in main = callc apply_twice.entry() ret (ret apply_twice)
  cont apply_twice.entry() =
    let y: int = apply f(x)
    tailapply f(y)

fun add_k(a: int) -> int in main = callc add_k.entry() ret (ret add_k)
  cont add_k.entry() =
    let s: int = add_int(a, k)
    jump (ret add_k)(s)
