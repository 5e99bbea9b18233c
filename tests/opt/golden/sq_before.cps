main main
fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call f(3) @prog.fl:3:22
    let u: unit = print_int(r)
    jump (ret main)(u)
fun sq(x: int) -> int in main = callc sq.entry() ret (ret sq)
  cont sq.entry() =
    let y: int = mul_int(x, x)
    jump (ret sq)(y)
fun f(a: int) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    let s: int = call sq(a) @prog.fl:2:11
    let t: int = add_int(s, 1)
    jump (ret f)(t)
