main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    tailcall toplevel_5()

fun op_int(r: ref<int>) -> int in main = callc op_int.entry() ret (ret op_int)
  cont op_int.entry() =
    let field: int = field r #0
    jump (ret op_int)(field)

fun op_int.1(r.1: ref<int>, x.1: int) -> unit in main = callc op_int.1.entry() ret (ret op_int.1)
  cont op_int.1.entry() =
    let u: unit = set_field r.1 #0 x.1
    jump (ret op_int.1)(u)

fun ref_int(x: int) -> ref<int> in main = callc ref_int.entry() ret (ret ref_int)
  cont ref_int.entry() =
    let record: ref<int> = block mutable(x)
    jump (ret ref_int)(record)

fun sum_to(n: int) -> int in main = callc sum_to.entry() ret (ret sum_to)
  cont sum_to.entry() =
    let r.2: ref<int> = call ref_int(0) @for_loop.fl:2:15
    let c: bool = le_int(1, n)
    br c, for, for_done
  cont for() =
    jump for_body(1)
  cont for_body(i: int) =
    let r.3: int = call op_int(r.2) @for_loop.fl:3:30
    let t: int = add_int(r.3, i)
    let r.4: unit = call op_int.1(r.2, t) @for_loop.fl:3:21
    let c.1: bool = eq_int(i, n)
    br c.1, for_done, for_next
  cont for_next() =
    let i.1: int = add_int(i, 1)
    jump for_body(i.1)
  cont for_done() =
    tailcall op_int(r.2) @for_loop.fl:4:3

fun toplevel_5() -> unit in main noinline = callc toplevel_5.entry() ret (ret toplevel_5)
  cont toplevel_5.entry() =
    let r.5: int = call sum_to(10) @for_loop.fl:5:20
    let t.1: unit = print_int(r.5)
    jump (ret toplevel_5)(t.1)
