main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let p: point = block mutable(1.5, 2.5)
    let q: point = block mutable(3.0, 4.0)
    let u.4: unit = set_field q #1 4.5
    let r: float = call f(p, q, 0.5, 10.0) @prog.fl:9:14
    let u: unit = print_float(r)
    let r.1: float = call f(p, p, 0.5, 10.0) @prog.fl:10:14
    let u.3: unit = print_float(r.1)
    jump (ret main)(u.3)

fun f(a: point, b: point, v: float, w: float) -> float in main = callc f.entry() ret (ret f)
  cont f.entry() =
    let u.1: unit = set_field a #0 v
    let m: float = field b #1
    let u.2: unit = set_field b #0 w
    let m.1: float = field b #1
    let x: float = field a #0
    let t: float = mul_float(x, m.1)
    let y: float = field b #0
    let t.1: float = add_float(t, m)
    let t.2: float = add_float(t.1, y)
    jump (ret f)(t.2)
