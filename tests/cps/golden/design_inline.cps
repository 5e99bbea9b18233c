;; The example of DESIGN.md after inlining sq into f: simplify merges the continuations.
;; passes: simplify
main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(6)
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f(a: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    jump sq.entry1()
  cont sq.entry1() =
    let y1: int = mul_int(a, a)
    jump sq.ret1(y1)
  cont sq.ret1(s: int) =
    let t: int = add_int(s, 1)
    jump (ret f)(t)
;; expect:
main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(6)
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f(a: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    let y1: int = mul_int(a, a)
    let t: int = add_int(y1, 1)
    jump (ret f)(t)
