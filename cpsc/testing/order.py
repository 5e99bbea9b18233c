"""Order-revealing programs, compared with `ocamlopt`: FL evaluates as ocamlopt does.

Each program is a list of statements `print_int (e)`, where e nests the constructs whose parts
are evaluated in some order (applications, known and unknown, over- and partial; tuples,
constructors, records written in any field order, lists, arrays; operators, comparisons at
several types; assignments; `|>` and `@@`; labelled and optional arguments in any order and
left out; `let ... and`, `for` bounds, `match` on tuples, exceptions raised midway, Printf)
around leaves `p "7" 3`, which print their tag before giving their value. What a program
prints is the order in which its leaves were evaluated, so any difference from ocamlopt's
order shows as a different output. ocamlopt, not `ocaml`, is the oracle: the two differ where
ocamlopt compiles a primitive inline (`compare` at int, `s.[i]`; see `cpsc.mono.order`).

    python -m cpsc.testing.order --count 200 --jobs 2       many programs, from a seed printed
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cpsc.testing.wholelang import Run, Verdict, first_seed, outcomes, seeded_runs

PRELUDE = """\
let p tag x = print_string tag; print_char ' '; x
let boom tag = print_string tag; print_string "! "; raise Exit
type r = { x : int; y : int; z : int }
type m = { mutable ma : int; mb : int }
type v = A | B of int * int | C of { c1 : int; c2 : int }
type color = Red | Green | Blue
exception E of int * int
let f1 a = a + 1
let f2 a b = a - 2 * b
let f3 a b c = a + b * 3 - c
let g1 a = print_string "g1 "; fun b -> a * 7 + b
let lab ~a ~b = a - b
let lab3 ~a ~b ~c = a * 100 + b * 10 + c
let opt ?(o = 5) a b = o * 100 + a * 10 + b
let r0 = { x = 1; y = 2; z = 3 }
let m0 = { ma = 0; mb = 1 }
let a0 = [| 0; 0; 0 |]
let b0 = Bytes.make 3 'a'
let cell = ref 0
let s0 = "abc"
let () = ignore (A, Red, Green, Blue, m0.mb)
"""

# Each form's `{}`s are int expressions (`%` marks a tag of its own: a leaf of the form)
FORMS = [
    "({} + {})", "({} - {})", "({} lxor {})", "(f1 {})", "(f2 {} {})", "(f3 {} {} {})", "(g1 {} {})",
    "((p \"%\" f2) {} {})", "(let h = f3 {} in h {} {})", "((fun a b -> a - b) {} {})",
    "(let g a b = a * 2 + b in g {} {})",
    "(let (a, b) = ({}, {}) in a - b)", "(let x, y = {}, {} in x - y)", "(let (a, _) = ({}, {}) in a)",
    "(match {}, {} with (a, b) -> a - b)", "(match ({}, {}, {}) with (0, _, _) -> 1 | (a, b, c) -> a + b - c)",
    "(match {}, {} with (a, b) -> a - b | exception Exit -> 77)", "(fst ({}, {}))",
    "(match B ({}, {}) with B (a, b) -> a - b | _ -> 0)",
    "(match C {{ c2 = {}; c1 = {} }} with C {{ c1; c2 }} -> c1 - c2 | _ -> 0)",
    "RECORD", "RECORD_WITH",
    "(List.fold_left (+) 0 [{}; {}; {}])", "(match {} :: [{}] with a :: _ -> a | [] -> 0)",
    "(Array.fold_left (+) 0 [|{}; {}|])", "(match [| {}; {} |] with [| a; b |] -> a - b | _ -> 0)",
    "(String.length (string_of_int {} ^ string_of_int {}))", "(List.length (List.map f1 [{}; {}]))",
    "(if {} < {} then 1 else 0)", "(if [{}] = [{}] then 1 else 0)", "(max {} {})",
    "(compare {} {})", "(compare (float_of_int {}) (float_of_int {}))",
    "(compare (string_of_int {}) (string_of_int {}))", "(compare (Int64.of_int {}) (Int64.of_int {}))",
    "(compare (if {} > 0 then Red else Green) (if {} > 0 then Blue else Red))",
    "(compare ({}, 1) ({}, 2))",
    "(Char.code (String.get (p \"%\" s0) ({} land 1)))", "(Char.code (p \"%\" s0).[{} land 1])",
    "(Char.code (Bytes.get (p \"%\" b0) ({} land 1)))",
    "(Bytes.set (p \"%\" b0) ({} land 1) (Char.chr (65 + ({} land 15))); 0)",
    "((p \"%\" cell) := {}; !cell)", "((p \"%\" m0).ma <- {}; m0.ma)",
    "((p \"%\" a0).({} land 1) <- {}; a0.(0))", "((p \"%\" a0).({} land 1))",
    "({} |> f1)", "({} |> f2 {})", "(f1 @@ {})", "(f2 {} @@ {})", "({} |> (p \"%\" f1))",
    "(lab ~b:{} ~a:{})", "(lab ~a:{} ~b:{})", "(let h = lab3 ~c:{} ~b:{} in h ~a:{})",
    "(let h = lab3 ~a:{} ~c:{} in h ~b:{})", "(opt ~o:{} {} {})", "(opt {} {} ~o:{})", "(opt {} {})",
    "(let a = {} and b = {} in a - b)", "(let s = ref 0 in for i = {} land 3 to {} land 3 do s := !s + i done; !s)",
    "(try raise (E ({}, {})) with E (a, b) -> a - b)", "TRY",
    "(String.length (Printf.sprintf \"%d,%d\" {} {}))", "(if {} > 3 then {} else {})", "(ignore {}; {})",
    "(Lazy.force (lazy {}) + {})",
]
_FIELDS = ("x", "y", "z")


class Generator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tags = 0

    def tag(self) -> str:
        self.tags += 1
        return str(self.tags)

    def expr(self, depth: int, catching: bool = False) -> str:
        """An int expression; `catching`: inside a `try ... with Exit`, so a leaf may raise."""
        if depth <= 0 or self.rng.random() < 0.2:
            if catching and self.rng.random() < 0.15:
                return f'(boom "{self.tag()}")'
            return f'(p "{self.tag()}" {self.rng.randint(0, 9)})'
        form = self.rng.choice(FORMS)
        if form == "TRY":
            return f"(try {self.expr(depth - 1, True)} with Exit -> 99)"
        if form in ("RECORD", "RECORD_WITH"):
            return self.record(depth, catching, form == "RECORD_WITH")
        catches_scrutinee = "exception Exit" in form
        pieces = form.split("{}")
        text = pieces[0]
        for i, piece in enumerate(pieces[1:]):
            text += self.expr(depth - 1, catching or (catches_scrutinee and i < 2)) + piece
        while "%" in text and '"%"' in text:
            text = text.replace('"%"', f'"{self.tag()}"', 1)
        return text.replace("{{", "{").replace("}}", "}")

    def record(self, depth: int, catching: bool, based: bool) -> str:
        """A record with its fields written in a random order (some left to the base)."""
        fields = list(_FIELDS)
        self.rng.shuffle(fields)
        if based:
            fields = fields[:self.rng.randint(1, 2)]
        given = "; ".join(f"{name} = {self.expr(depth - 1, catching)}" for name in fields)
        made = f'{{ (p "{self.tag()}" r0) with {given} }}' if based else f"{{ {given} }}"
        return f"(let r = {made} in r.x - r.y + r.z)"


def program(seed: int, statements: int = 30, depth: int = 3) -> str:
    """The program of `seed`."""
    gen = Generator(random.Random(seed))
    lines = [f"(* order seed {seed} *)", PRELUDE.rstrip()]
    for _ in range(statements):
        lines.append(f"let () = print_int {gen.expr(depth)}; print_newline ()")
    return "\n".join(lines) + "\n"


def run_ocamlopt(source: str, timeout: float = 60.0) -> Run | None:
    """What the program compiled by `ocamlopt` prints (None: not installed, or it refuses the program)."""
    if shutil.which("ocamlopt") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="order-") as folder:
        (Path(folder) / "prog.ml").write_text(source, encoding="latin-1")
        built = subprocess.run(["ocamlopt", "-w", "-a", "prog.ml", "-o", "prog"], cwd=folder, capture_output=True,
                               timeout=timeout)
        if built.returncode != 0:
            return None
        done = subprocess.run([str(Path(folder) / "prog")], capture_output=True, timeout=timeout)
    return Run(done.stdout.decode("latin-1"), done.returncode)


def check(seed: int, source: str | None = None, native: bool = True) -> Verdict:
    """The levels at which the program of `seed` (or `source`) prints otherwise than ocamlopt's."""
    text = source if source is not None else program(seed)
    expected = run_ocamlopt(text)
    if expected is None:
        return Verdict(seed, None, {})
    disagreements = {level: repr(got) for level, got in outcomes(text, native) if got != expected}
    return Verdict(seed, expected, disagreements)


def main(argv: list[str] | None = None) -> int:
    args = seeded_runs("order", __doc__, "where each program that disagrees goes").parse_args(argv)
    first = first_seed(args, "order")
    seeds = list(range(first, first + args.count))
    found, refused = [], []
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            verdicts = list(pool.map(check, seeds, [None] * len(seeds), [not args.no_native] * len(seeds)))
    else:
        verdicts = [check(seed, native=not args.no_native) for seed in seeds]
    for verdict in verdicts:
        if not verdict.valid:
            refused.append(verdict.seed)
        elif verdict.disagreements:
            found.append(verdict.seed)
            args.findings.mkdir(parents=True, exist_ok=True)
            (args.findings / f"seed{verdict.seed}.ml").write_text(program(verdict.seed), encoding="latin-1")
            print(f"seed {verdict.seed}: disagrees at {', '.join(verdict.disagreements)}", file=sys.stderr)
    agreeing = len(seeds) - len(found) - len(refused)
    print(f"order: {len(seeds)} checked: {agreeing} agree with ocamlopt, {len(found)} disagree {found}, "
          f"{len(refused)} refused by ocamlopt {refused}", file=sys.stderr)
    return 1 if found or refused else 0


if __name__ == "__main__":
    sys.exit(main())
