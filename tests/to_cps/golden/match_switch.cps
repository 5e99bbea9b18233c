main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    tailcall toplevel_8()

fun f(op: t) -> int in main = callc f.entry() ret (ret f)
  cont f.entry() =
    let is_block: bool = is_block(op)
    br is_block, block, immediate
  cont immediate() =
    let constructor: int = immediate_value(op)
    switch constructor [0: case] default case2
  cont case() =
    jump (ret f)(0)
  cont block() =
    let tag: int = field op #0
    switch tag [0: case.2, 1: case.3] default case2
  cont case2() =
    jump (ret f)(1)
  cont case.3() =
    let field.1: int = field op #1
    let field.2: int = field op #2
    switch field.2 [0: case.4] default otherwise
  cont otherwise() =
    let t: int = mul_int(field.1, field.2)
    jump (ret f)(t)
  cont case.4() =
    jump (ret f)(field.1)
  cont case.2() =
    let field: int = field op #1
    jump (ret f)(field)

fun toplevel_8() -> unit in main noinline = callc toplevel_8.entry() ret (ret toplevel_8)
  cont toplevel_8.entry() =
    let D: t = block(1, 2, 3)
    let r: int = call f(D) @match_switch.fl:8:20
    let t.1: unit = print_int(r)
    jump (ret toplevel_8)(t.1)
