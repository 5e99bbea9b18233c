"""Printf's conversions and Format's layout against OCaml's: random tables of format strings
and values, rendered as one program, give the same output under `ocaml` and cpsc (the AST
interpreter, and the CPS interpreter after -O2); each format given to its printer as a literal
or as a format value (`format_of_string`, `^^`). For Format the formats nest boxes of every
kind with break hints, text and conversions, at random margins, so the pretty-printer's line
breaking decisions are compared, not only its text. (Tags are left out: the `ocaml` toplevel
marks them, a compiled OCaml program does not.)"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.programs.test_library_against_ocaml import _agrees

pytestmark = pytest.mark.skipif(shutil.which("ocaml") is None, reason="needs the ocaml toplevel")


def _string_literal(text: str) -> str:
    return '"' + "".join(c if c not in '"\\' else "\\" + c for c in text) + '"'


def _char_literal(c: str) -> str:
    return {"'": "'\\''", "\\": "'\\\\'", "\n": "'\\n'", "\t": "'\\t'"}.get(c, f"'{c}'")


def _float_literal(x: float) -> str:
    text = repr(x)
    text = {"inf": "infinity", "-inf": "neg_infinity", "nan": "nan"}.get(text, text)
    return f"({text})" if text.startswith("-") else text


def _int_literal(n: int, suffix: str = "") -> str:
    return f"({n}{suffix})" if n < 0 else f"{n}{suffix}"


ints = st.one_of(st.integers(-1000, 1000), st.integers(-(1 << 62), (1 << 62) - 1))
int32s = st.integers(-(1 << 31), (1 << 31) - 1)
floats = st.one_of(st.floats(allow_nan=False, width=64), st.floats(-1e4, 1e4), st.sampled_from([0.0, -0.0, 0.5, 1e-310]))
text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
chars = st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from(["\n", "\t"])
flags = st.lists(st.sampled_from("-0+ #"), max_size=2, unique=True).map("".join)
width = st.one_of(st.just(""), st.integers(1, 14).map(str))
# (`.-3`, `.+3`: OCaml's legacy parser reads the sign and leaves it out)
precision = st.one_of(st.just(""), st.integers(0, 14).map(".{}".format),
                      st.builds(".{}{}".format, st.sampled_from("-+"), st.integers(0, 9)))

# (conversion with its flags, width and precision; the argument it takes), each as OCaml accepts it
# (unsigned conversions of non-negative ints: a negative one shows FL's 64 bits, OCaml's 63)
INT_CONVERSIONS = st.builds(lambda f, w, p, c, n: (f"%{f}{w}{p}{c}", _int_literal(abs(n) if c in "uxXo" else n)),
                            st.sampled_from(["", "-", "0", "+", " ", "#"]), width, precision,
                            st.sampled_from("diuxXo"), ints)
SIZED_CONVERSIONS = st.one_of(
    st.builds(lambda w, c, n: (f"%{w}l{c}", _int_literal(n, "l")), width, st.sampled_from("dixXu"), int32s),
    st.builds(lambda w, c, n: (f"%{w}L{c}", _int_literal(n, "L")), width, st.sampled_from("dixX"), ints),
    st.builds(lambda w, n: (f"%{w}nd", _int_literal(n, "n")), width, ints))
FLOAT_CONVERSIONS = st.builds(lambda f, w, p, c, x: (f"%{f}{w}{p}{c}", _float_literal(x)),
                              st.sampled_from(["", "-", "0", "+", " "]), width, precision,
                              st.sampled_from("feEgGFhH"), floats)
OTHER_CONVERSIONS = st.one_of(
    st.builds(lambda f, w, p, s: (f"%{f}{w}{p}s", _string_literal(s)), st.sampled_from(["", "-"]), width, precision,
              text),
    st.builds(lambda p, s: (f"%{p}S", _string_literal(s)), precision, text),
    st.builds(lambda c: ("%c", _char_literal(c)), chars),
    st.builds(lambda c: ("%C", _char_literal(c)), chars),
    st.builds(lambda w, b: (f"%{w}B", "true" if b else "false"), width, st.booleans()),
    st.builds(lambda w, n: ("%*d", f"{w} {_int_literal(n)}"), st.integers(0, 12), ints),
    st.builds(lambda p, x: ("%.*f", f"{p} {_float_literal(x)}"), st.integers(0, 8), st.floats(-1e6, 1e6)),
    st.just(("%%", "")))
CONVERSIONS = st.one_of(INT_CONVERSIONS, SIZED_CONVERSIONS, FLOAT_CONVERSIONS, OTHER_CONVERSIONS)


def _printf_line(pieces: list[tuple[str, str]], as_value: bool) -> str:
    fmt = _string_literal("|".join(spec for spec, _ in pieces))
    arguments = " ".join(argument for _, argument in pieces if argument)
    if as_value:  # a format value, which the printer takes apart at run time
        fmt = f"(format_of_string {fmt})"
    return f"  print_endline (Printf.sprintf {fmt} {arguments});"


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=25)
@given(st.lists(st.builds(_printf_line, st.lists(CONVERSIONS, min_size=1, max_size=6), st.booleans()),
                min_size=5, max_size=25))
def test_printf_conversions_agree_with_ocaml(lines: list[str]):
    _agrees("let () =\n" + "\n".join(lines) + "\n  ()\n")


# Format: a layout is text, conversions, break hints and boxes in boxes
words = st.text("abcdefghij", min_size=1, max_size=14)
BREAKS = st.one_of(st.sampled_from(["@ ", "@,", "@;"]),
                   st.builds("@;<{} {}>".format, st.integers(0, 4), st.integers(-3, 6)))
LEAVES = st.one_of(words.map(lambda w: (w, [])), words.map(lambda w: (w + " ", [])), BREAKS.map(lambda b: (b, [])),
                   st.builds(lambda n: ("%d", [_int_literal(n)]), ints),
                   st.builds(lambda s: ("%s", [_string_literal(s)]), words),
                   st.builds(lambda w, s: (f"@<{w}>%s", [_string_literal(s)]), st.integers(0, 9), words),
                   st.builds(lambda x: ("%a", ["pp_pair", f"({x}, {x + 1})"]), st.integers(0, 99)),
                   st.builds(lambda n: ("%a", ["pp_list", "[" + "; ".join(map(str, range(n))) + "]"]),
                             st.integers(0, 12)),
                   st.just(("@\n", [])), st.just(("@@", [])), st.just(("@?", [])))
BOX = st.builds(lambda kind, indent: f"@[<{kind}{indent}>" if kind or indent else "@[",
                st.sampled_from(["", "h", "v", "hv", "hov", "b"]), st.sampled_from(["", " 0", " 1", " 2", " 4"]))


def _layout(children: st.SearchStrategy) -> st.SearchStrategy:
    def boxed(box: str, items: list[tuple[str, list[str]]]) -> tuple[str, list[str]]:
        return box + "".join(t for t, _ in items) + "@]", [a for _, args in items for a in args]
    return st.builds(boxed, BOX, st.lists(children, max_size=8))


LAYOUTS = st.recursive(LEAVES, _layout, max_leaves=30)

FORMAT_HEADER = """let pp_pair ppf (a, b) = Format.fprintf ppf "@[<hov 1>(%d,@ %d)@]" a b
let pp_list ppf l =
  Format.fprintf ppf "@[<hv 2>[%a]@]" (Format.pp_print_list ~pp_sep:(fun ppf () -> Format.fprintf ppf ";@ ")
                                         Format.pp_print_int) l
let () =
"""


def _format_line(how: str, layout: tuple[str, list[str]]) -> str:
    fmt, arguments = _string_literal(layout[0]), " ".join(layout[1])
    if how == "printf":
        return f"  Format.printf {_string_literal(layout[0] + '@.')} {arguments};"
    if how == "value":  # a format value, and one made by ^^
        return f"  Format.printf (format_of_string {fmt} ^^ \"@.\") {arguments};"
    if how == "pending":  # left in the pretty-printer's queue until a later flush, or the exit
        return f"  Format.printf {fmt} {arguments}; print_string \"|\";"
    return f"  print_endline (Format.asprintf {fmt} {arguments});"


FORMAT_LINES = st.one_of(
    st.builds(_format_line, st.sampled_from(["printf", "pending", "asprintf", "value"]), LAYOUTS),
    st.builds("  Format.set_margin {};".format, st.integers(4, 90)),
    st.builds("  Format.set_max_indent {};".format, st.integers(2, 80)))


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=25)
@given(st.lists(FORMAT_LINES, min_size=3, max_size=14))
def test_format_layouts_agree_with_ocaml(lines: list[str]):
    _agrees(FORMAT_HEADER + "\n".join(lines) + "\n  ()\n")
