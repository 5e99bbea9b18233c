main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call apply_twice.spec(10, 3)
    let u: unit = print_int(r)
    jump (ret main)(u)

fun apply_twice.spec(x.1: int, k.1: int) -> int in main = callc apply_twice.entry.1() ret (ret apply_twice.spec)
  cont apply_twice.entry.1() =
    let y.1: int = call add_k.1(x.1)
    tailcall add_k.1(y.1)

fun add_k.1(a.1: int) -> int in apply_twice.spec = callc add_k.entry.1() ret (ret add_k.1)
  cont add_k.entry.1() =
    let s.1: int = add_int(a.1, k.1)
    jump (ret add_k.1)(s.1)
