"""`specialise`: a function given a known closure gets a copy in which the closure is made
afresh, so that its calls become known calls."""

from __future__ import annotations

from pathlib import Path

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.opt.context import PassContext
from cpsc.opt.pipeline import LEVELS, run_alone
from cpsc.opt.specialise import specialise_with_stats
from tests.kit import run_pass

GOLDEN = Path(__file__).parent / "golden"


def test_golden_apply_twice_specialised_then_simplified():
    """The copy takes what the closure captures (`k`) and makes the closure of its own copy of
    `add_k`; simplify then makes both applies known calls."""
    before = parse_program((GOLDEN / "apply_twice_before.cps").read_text())
    specialised = run_alone("specialise", before)
    verify(specialised)
    assert print_program(specialised) == (GOLDEN / "apply_twice_specialised.cps").read_text()
    simplified = run_alone("simplify", specialised)
    verify(simplified)
    assert print_program(simplified) == (GOLDEN / "apply_twice_simplified.cps").read_text()
    assert run_cps(before) == run_cps(specialised) == run_cps(simplified)
    assert run_cps(before).stdout == "16"


RECURSIVE = """
let rec map f = function [] -> [] | x :: rest -> let y = f x in y :: map f rest
let rec fold f acc = function [] -> acc | x :: rest -> fold f (f acc x) rest
let () =
  let scale = int_of_string "3" and shift = int_of_string "10" in
  let xs = map (fun x -> x * scale - shift) [1; 2; 3] in
  let ys = map (fun x -> x + shift) xs in
  print_int (fold (fun a x -> a * 7 + x) 0 ys)
"""


def test_a_recursive_function_passing_its_closure_on_gets_one_copy_per_closure():
    """Each closure gets its copy of `map` (`fold`, tail recursive, is a loop by then), and
    the copy's own recursive call is to itself: no closure is passed or applied any more."""
    typed = driver.front_end(RECURSIVE, "prog.fl")
    prepared, _ = driver.optimise(driver.to_cps(typed), ["simplify", "contify"], verify_each=True)
    specialised, stats = specialise_with_stats(prepared)
    verify(specialised)
    assert stats["functions specialised"] == 2
    after, _ = driver.optimise(specialised, ["simplify"], verify_each=True)
    text = print_program(after)
    copies = [part for part in text.split("\nfun ") if part.startswith("map_int_int.spec")]
    assert len(copies) == 2 and not any("apply " in part for part in copies)
    assert all(line.split("call ")[1].startswith("map_int_int.spec") for line in text.splitlines()
               if "call map" in line)
    assert run_cps(after) == run_cps(prepared)
    assert run_cps(after).stdout == "198"


def test_what_closures_capture_reaches_the_copies_in_order():
    """Two captured values of one type used asymmetrically, and two different closures given to
    one function: each call must see its own closure and its own captured values."""
    source = """
let twice g x = g (g x)
let () =
  let a = int_of_string "5" and b = int_of_string "2" in
  print_int (twice (fun x -> x * a - b) 1); print_char ' ';
  print_int (twice (fun x -> x - a * b) 100); print_char ' ';
  print_int (twice (fun x -> x * b - a) 1)
"""
    text, _, _ = run_pass(source, ["simplify"], ["specialise", "simplify"])
    assert text.count("fun twice_int.spec") == 3
    assert run_cps(driver.optimise(driver.to_cps(driver.front_end(source, "p.fl")),
                                   LEVELS[2].passes)[0]).stdout == "13 80 -11"


def test_what_it_leaves_alone_is_remarked():
    source = """
let apply_it f x = f x
let rec count n = if n = 0 then 0 else 1 + count (n - 1)
let keep f = [f]
let () =
  print_int (apply_it count 4);
  print_int (List.length (keep (fun x -> x + 1)));
  let rec loop i = if i > 3 then 0 else loop (i + 1) in
  print_int (apply_it loop 0)
"""
    typed = driver.front_end(source, "prog.fl")
    prepared, _ = driver.optimise(driver.to_cps(typed), ["simplify"], verify_each=True)
    context = PassContext()
    specialised, stats = specialise_with_stats(prepared, context)
    verify(specialised)
    assert run_cps(specialised) == run_cps(prepared)
    messages = [r.message for r in context.remarks if r.pass_name == "specialise"]
    # `count` is closed and `apply_it` calls its argument: specialised
    assert any("apply_it_int_int specialised to count" in m for m in messages), messages
    # `keep` never calls nor passes on its argument: nothing to gain, nothing remarked
    assert not any("keep" in m for m in messages)


def test_fuel_stops_it():
    before = parse_program((GOLDEN / "apply_twice_before.cps").read_text())
    assert specialise_with_stats(before, PassContext(fuel=0))[0] is before


KERNEL = """
let eval_a i j = 1.0 /. float_of_int ((i + j) * (i + j + 1) / 2 + i + 1)
let mul_mv m n v out =
  for i = 0 to n - 1 do
    let s = ref 0.0 in
    for j = 0 to n - 1 do s := !s +. m i j *. v.(j) done;
    out.(i) <- !s
  done
let () =
  let n = 5 in
  let u = Array.make n 1.0 and v = Array.make n 0.0 in
  mul_mv eval_a n u v;
  mul_mv (fun i j -> eval_a j i) n v u;
  Array.iter (fun x -> Printf.printf "%.6f " x) u
"""


def test_the_spectral_norm_kernel_given_its_matrix_as_a_function_calls_nothing_unknown():
    """Issue 29's shape: at -O2 the matrix, passed as a curried function, is inlined into each
    copy of the kernel (here inlined in turn): no closure is made or applied any more."""
    typed = driver.front_end(KERNEL, "kernel.fl")
    cps = driver.to_cps(typed)
    optimised, _ = driver.optimise(cps, LEVELS[2].passes, verify_each=True, context=LEVELS[2].context())
    text = print_program(optimised)
    assert "apply " not in text and "closure " not in text, text
    assert run_cps(optimised) == run_cps(cps)


def test_a_closure_of_two_arguments_is_copied_with_its_full_function():
    """A merge sort given `fun a b -> ...` capturing `k`: the copy makes the closure of its own
    copies of the curried wrappers and of the function taking both arguments (its `full`), so
    the comparison's applies of two arguments become calls of it, inlined at -O2."""
    source = """
let rec merge cmp xs ys = match xs, ys with
  | [], l | l, [] -> l
  | x :: xs', y :: ys' -> if cmp x y <= 0 then x :: merge cmp xs' ys else y :: merge cmp xs ys'
let rec split l = match l with x :: y :: rest -> let a, b = split rest in (x :: a, y :: b) | _ -> (l, [])
let rec sort cmp l = match l with [] | [_] -> l | _ -> let a, b = split l in merge cmp (sort cmp a) (sort cmp b)
let () =
  let k = int_of_string "10" in
  List.iter (fun x -> print_int x; print_char ' ') (sort (fun a b -> compare (a mod k) (b mod k)) [31; 12; 5; 44; 20; 7])
"""
    cps = driver.to_cps(driver.front_end(source, "p.fl"))
    before = print_program(run_alone("simplify", cps))
    text = print_program(run_alone("specialise", run_alone("simplify", cps)))

    def closures_made(code: str) -> list[tuple[str, str]]:  # (the closure's function, its full one)
        return [tuple(line.split(" = closure ")[1].split("() full ")) for line in code.splitlines()  # type: ignore[misc]
                if " = closure " in line and " full " in line]

    (wrapper, full), = [made for made in closures_made(before) if made[0].startswith("fun.curry1")]
    copied = closures_made(text.split("fun sort_int.spec(", 1)[1])
    assert copied and copied[0][0] != wrapper and copied[0][1] != full  # its own copies of both
    assert f"fun {copied[0][0]}(" in text and f"fun {copied[0][1]}(" in text
    optimised, _ = driver.optimise(cps, LEVELS[2].passes, verify_each=True, context=LEVELS[2].context())
    assert "apply " not in print_program(optimised)
    assert run_cps(optimised) == run_cps(cps)
    assert run_cps(cps).stdout == "20 31 12 44 5 7 "
