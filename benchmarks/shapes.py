"""Generators of machine-made FL programs of a given number of lines, one per shape.

Each shape stresses one dimension of compile time: the number of top-level declarations, the
length of a `let` chain inside one function, the nesting depth of an expression, many small
functions that call each other, and ordinary code (a realistic block repeated with fresh names).
Every generated program is also a valid OCaml program, so `ocamlopt` can build the same file.
"""

from __future__ import annotations

from collections.abc import Callable


def toplevel_lets(lines: int) -> str:
    """`let xI = I` declarations, all used by the last line."""
    out = [f"let x{i} = {i}" for i in range(lines - 1)]
    out.append(f"let () = print_int (x0 + x{lines // 2} + x{lines - 2})")
    return "\n".join(out) + "\n"


def functions(lines: int) -> str:
    """Small top-level functions, each calling the previous one."""
    out = ["let f0 x = x + 1"]
    out += [f"let f{i} x = if x > {i} then f{i - 1} (x - 1) else f{i - 1} x + {i % 7}" for i in range(1, lines - 1)]
    out.append(f"let () = print_int (f{lines - 2} 3)")
    return "\n".join(out) + "\n"


def tail_chain(lines: int) -> str:
    """Small top-level functions, each tail-calling the previous one once: contify moves each
    into the one caller of the whole chain (quadratic when it moved them callees first)."""
    out = ["let f0 x = x + 1"]
    out += [f"let f{i} x = if x > {i} then f{i - 1} (x - 1) else x * 2 + {i}" for i in range(1, lines - 1)]
    out.append(f"let () = print_int (f{lines - 2} 7)")
    return "\n".join(out) + "\n"


def let_chain(lines: int) -> str:
    """One function whose body is a chain of `let ... in`, each using the previous value."""
    out = ["let run seed =", "  let x0 = seed in"]
    out += [f"  let x{i} = (x{i - 1} * 3 + {i}) land 1023 in" for i in range(1, lines - 3)]
    out.append(f"  x{lines - 4}")
    out.append("let () = print_int (run 7)")
    return "\n".join(out) + "\n"


def nesting(lines: int) -> str:
    """One expression nested `lines` parentheses deep: `(1 + (2 + (3 + ...)))`."""
    depth = lines - 1
    out = ["let () = print_int"]
    out += [f"  ({i % 10} +" for i in range(depth)]
    out[-1] += " 0" + ")" * depth
    return "\n".join(out) + "\n"


ORDINARY_BLOCK = """\
let rec gcd_{n} a b = if b = 0 then a else gcd_{n} b (a mod b)
let rec power_{n} x k = if k = 0 then 1.0 else x *. power_{n} x (k - 1)
let rec sum_to_{n} f i acc = if i = 0 then acc else sum_to_{n} f (i - 1) (acc + f i)
let divmod_{n} a b = (a / b, a mod b)
let compose_{n} f g x = f (g x)
let add_{n} k = fun x -> x + k
let classify_{n} x =
  if x < 0 then "negative"
  else if x = 0 then "zero"
  else if x mod 2 = 0 then "even"
  else "odd"
let rec fib_{n} k = if k < 2 then k else fib_{n} (k - 1) + fib_{n} (k - 2)
let mean_{n} a b c = (a +. b +. c) /. 3.0
let () =
  let (q, r) = divmod_{n} ({n} + 47) 5 in
  let inc = add_{n} {n} in
  let square x = x * x in
  let total = sum_to_{n} (compose_{n} inc square) 10 0 in
  print_int (gcd_{n} (q * 12) (r + 18) + total);
  print_char ' ';
  print_string (classify_{n} (fib_{n} 10 - {n}));
  print_char ' ';
  print_float (mean_{n} (power_{n} 1.5 3) 2.0 (float_of_int r));
  print_newline ()
"""


def ordinary(lines: int) -> str:
    """A realistic block of core FL (recursion, closures, tuples, floats, strings) repeated."""
    block_lines = ORDINARY_BLOCK.count("\n")
    return "".join(ORDINARY_BLOCK.format(n=n) for n in range(max(1, lines // block_lines)))


def big_match(lines: int) -> str:
    """One variant type of about lines/2 constructors and one `function` matching each."""
    count = max(2, (lines - 4) // 2)
    out = ["type t ="]
    out += [f"  | C{i}" if i % 2 == 0 else f"  | C{i} of int * string" for i in range(count)]
    out.append("let f = function")
    out += [f"  | C{i} -> {i}" if i % 2 == 0 else f"  | C{i} (x, s) -> x + String.length s + {i}" for i in range(count)]
    last = count - 1 if count % 2 == 0 else count - 2
    # Arguments known only at run time, or LLVM folds `f` away at small sizes but not at large
    out.append(f'let () = let k = Array.length Sys.argv in print_int (f (if k > 1 then C2 else C0) + f (C{last} (k, "ab")))')
    return "\n".join(out) + "\n"


def list_pattern(lines: int) -> str:
    """One case matching a list of `lines` elements, `[x0; x1; ...]`: a pattern nested as
    deep as it is long, each element a variable (for the matcher's bindings) or `_`."""
    elements = "; ".join(f"x{i}" if i % 2 == 0 else "_" for i in range(max(2, lines)))
    return (f"let f l = match l with [{elements}] -> x0 + x2 | x :: _ -> x | [] -> 0\n"
            "let () = print_int (f [Array.length Sys.argv; 2])\n")


RECORD_BLOCK = """\
type r{n} = {{ a{n} : int; mutable b{n} : float; c{n} : string }}
let make{n} i = {{ a{n} = i; b{n} = float_of_int i; c{n} = string_of_int i }}
let bump{n} r = r.b{n} <- r.b{n} +. 1.5; {{ r with a{n} = r.a{n} + 1 }}
let () = let r = bump{n} (make{n} {n}) in print_int (r.a{n} + String.length r.c{n}); print_newline ()
"""


def records(lines: int) -> str:
    """Record types, each made, updated in place and copied with `{ r with ... }`."""
    return "".join(RECORD_BLOCK.format(n=n) for n in range(max(1, lines // 4)))


SHAPES: dict[str, Callable[[int], str]] = {
    "toplevel_lets": toplevel_lets,
    "functions": functions,
    "tail_chain": tail_chain,
    "let_chain": let_chain,
    "nesting": nesting,
    "ordinary": ordinary,
    "big_match": big_match,
    "records": records,
    "list_pattern": list_pattern,
}
