"""Which functions are `preserve_nonecc` (no callee-saved registers) and which `tailcc`: every
`musttail` call must stay one LLVM can guarantee."""

from __future__ import annotations

from cpsc import driver
from cpsc.llvm.lower import calling_conventions

SOURCE = """
let rec tak x y z = if y < x then tak (tak (x - 1) y z) (tak (y - 1) z x) (tak (z - 1) x y) else z
let rec even n = if n = 0 then true else odd (n - 1)
and odd n = if n = 0 then false else even (n - 1)
let rec count_down n acc = if n = 0 then acc else count_down (n - 1) (acc +. 1.)
let rec loop n (f : int -> int) = if n = 0 then f 0 else loop (n - 1) f
let twice f x = f (f x)
let () =
  print_int (tak 18 12 6); print_string (string_of_bool (even 1000));
  print_float (count_down 10 0.); print_int (loop 3 (fun x -> x + 1)); print_int (twice (fun x -> x * 3) 2)
"""


def _conventions() -> dict[str, str]:
    return calling_conventions(driver.to_ssa_module(driver.to_cps(driver.front_end(SOURCE, "cc.fl"))))


def test_functions_tail_calling_only_their_own_kind_save_no_registers():
    conventions = _conventions()
    assert conventions["tak"] == "preserve_nonecc"  # its recursive calls are not tail calls
    assert conventions["even"] == conventions["odd"] == "preserve_nonecc"  # one prototype
    assert conventions["count_down"] == "preserve_nonecc"


def test_closures_and_what_tail_calls_them_stay_tailcc():
    conventions = _conventions()
    codes = [name for name in conventions if name.endswith(".code")]
    assert codes and all(conventions[name] == "tailcc" for name in codes)
    assert conventions["loop"] == "tailcc"  # its last call applies a closure
