;; Constant folding, branch folding, dead code and phi copy propagation.
;; passes: simplify
main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let a: int = add_int(2, 3)
    let b: bool = lt_int(a, 4)
    let dead: (int * int) = tuple(a, a)
    br b, yes, no
  cont yes() =
    jump join(1, a)
  cont no() =
    let c: int = call g(a)
    jump join(c, a)
  cont join(x: int, same: int) =
    let s: int = add_int(x, same)
    let u: unit = print_int(s)
    jump (ret main)(u)

fun g(n: int) -> int in main = callc g.entry() ret (ret g)
  cont g.entry() =
    jump (ret g)(n)
;; expect:
main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let c: int = call g(5)
    let s: int = add_int(c, 5)
    let u: unit = print_int(s)
    jump (ret main)(u)

fun g(n: int) -> int in main = callc g.entry() ret (ret g)
  cont g.entry() =
    jump (ret g)(n)
