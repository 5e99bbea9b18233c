main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(10, 3) @prog.fl:9:14
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f(n: int, k0: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    jump loop(0, k0, 0)
  cont loop(i: int, k1: int, acc: int) =
    let more: bool = lt_int(i, n)
    br more, body, done
  cont done() =
    jump (ret f)(acc)
  cont body() =
    let k2: int = add_int(k0, 1)
    let square: int = mul_int(k2, k2)
    let acc2: int = add_int(acc, square)
    let i2: int = add_int(i, 1)
    jump loop(i2, k0, acc2)
