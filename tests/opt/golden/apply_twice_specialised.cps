main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let k: int = add_int(1, 2)
    let c: (int -> int) = closure add_k()
    let r: int = call apply_twice.spec(10, k)
    let u: unit = print_int(r)
    jump (ret main)(u)

fun add_k(a: int) -> int in main = callc add_k.entry() ret (ret add_k)
  cont add_k.entry() =
    let s: int = add_int(a, k)
    jump (ret add_k)(s)

fun apply_twice(f: (int -> int), x: int) -> int in main = callc apply_twice.entry() ret (ret apply_twice)
  cont apply_twice.entry() =
    let y: int = apply f(x)
    tailapply f(y)

fun apply_twice.spec(x.1: int, k.1: int) -> int in main = callc apply_twice.entry.1() ret (ret apply_twice.spec)
  cont apply_twice.entry.1() =
    let f.1: (int -> int) = closure add_k.1()
    let y.1: int = apply f.1(x.1)
    tailapply f.1(y.1)

fun add_k.1(a.1: int) -> int in apply_twice.spec = callc add_k.entry.1() ret (ret add_k.1)
  cont add_k.entry.1() =
    let s.1: int = add_int(a.1, k.1)
    jump (ret add_k.1)(s.1)
