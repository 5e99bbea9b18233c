"""The parse tables as stored data (`cpsc.syntax.lalr`): tables loaded from the user's cache
parse exactly as tables Lark has just made, a damaged cache file is made again, and a token the
root lexer finds but the parser's state rejects is lexed again by that state's lexer."""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

import pytest
from lark import Lark

from cpsc.syntax import ast, lalr, parser
from cpsc.syntax.lalr import LalrDriver, ParseTables
from cpsc.syntax.rules import ToAst

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(parser, "cache_dir", lambda: tmp_path)
    return tmp_path


def _fresh_tables(methods: object) -> ParseTables:
    return ParseTables.from_lark(parser.lark_parser(methods), methods)


def _plain(tables: ParseTables) -> tuple[object, ...]:
    terminals = [(t.name, type(t.pattern).__name__, t.pattern.value, t.pattern.flags, t.priority) for t in tables.terminals]
    return tables.states, tables.rules, tables.starts, terminals, tables.ignore


def _parse(tables: ParseTables, text: str) -> object:
    builder = ToAst()
    methods = parser._callbacks(builder)
    builder.file = "t.fl"
    return LalrDriver(pickle.loads(pickle.dumps(tables)), methods).parse(text, 10**6)


def test_stored_tables_parse_as_tables_lark_has_just_made(cache: Path):
    methods = parser._callbacks(ToAst())
    stored = parser._parse_tables(methods)  # made, then stored in the (empty) cache
    [path] = cache.iterdir()
    loaded = parser._parse_tables(methods)  # read back
    assert _plain(loaded) == _plain(stored) == _plain(pickle.loads(path.read_bytes()))
    # Lark numbers its states differently each time it analyses the grammar: compare parses
    fresh = _fresh_tables(parser._callbacks(ToAst()))
    for program in ["switch_tables.fl", "records.fl", "exceptions.fl"]:
        text = parser.strip_comments((PROGRAMS / program).read_text(), "t.fl")
        assert repr(_parse(loaded, text)) == repr(_parse(fresh, text))


def test_a_damaged_cache_file_is_made_again(cache: Path):
    methods = parser._callbacks(ToAst())
    parser._parse_tables(methods)
    [path] = cache.iterdir()
    path.write_bytes(b"\x80\x05 not a pickle")
    tables = parser._parse_tables(methods)
    assert isinstance(tables, ParseTables) and pickle.loads(path.read_bytes()).starts == tables.starts


def test_a_token_the_state_rejects_is_lexed_again_by_the_state_lexer(cache: Path):
    # The root lexer reads `'a'` as a type variable (TYVAR's pattern is tried first and takes
    # the quote); no state where an expression may start accepts one, and that state's lexer,
    # which has no TYVAR, reads the char literal.
    builder = ToAst()
    methods = parser._callbacks(builder)
    builder.file = "t.fl"
    driver = LalrDriver(parser._parse_tables(methods), methods)
    module = driver.parse("let c = 'a'\nlet t = (fun x -> x : 'a -> 'a)\n", 10**6)
    assert isinstance(module, ast.Module)
    char = module.declarations[0].bindings[0].value  # type: ignore[attr-defined]
    assert isinstance(char, ast.Const) and char.value == "a"
    assert any("TYVAR" not in accepted and "CHAR" in accepted for accepted in driver.lexers._made)


@functools.cache
def _lark() -> tuple[Lark, parser._ToAst]:
    builder = ToAst()
    return parser.lark_parser(parser._callbacks(builder)), builder


def _lark_parse(text: str) -> object:
    """The same text parsed by Lark's own LALR parser and contextual lexer."""
    lark, builder = _lark()
    builder.file = "t.fl"
    return lark.parse(text, start="start")


def _sources() -> list[Path]:
    root = PROGRAMS.parents[1]
    return sorted(PROGRAMS.glob("*.fl")) + sorted((root / "examples").glob("*.fl")) + sorted((root / "cpsc" / "stdlib").glob("*.fl"))


def test_every_program_parses_as_lark_s_own_parser_and_lexer_parse_it():
    # The driver's token loop (white space apart, keywords by dict, a state's terminals tried
    # where the root lexer's token is rejected) must give Lark's contextual lexer's tokens.
    sources = _sources()
    assert len(sources) > 50
    for source in sources:
        text = parser.strip_attributes(parser.strip_comments(source.read_text(encoding="latin-1"), "t.fl"))
        assert repr(parser.parse_items(text, "t.fl")) == repr(_lark_parse(text)), source.name


@pytest.mark.parametrize("text", ["let x = 1 +\n", "let x = 'ab'\n", "let s = \"abc\nlet y = 2\n", "let x = 1 ` 2\n",
                                  "let f x = match x with | 1 -> 2 | ->\n", "let c = 'a' 'b\n"])
def test_a_syntax_error_is_the_one_lark_s_own_parser_and_lexer_raise(cache: Path, text: str):
    methods = parser._callbacks(ToAst())
    tables = parser._parse_tables(methods)
    with pytest.raises(Exception) as ours:
        _parse(tables, text)
    with pytest.raises(Exception) as theirs:
        _lark_parse(text)
    assert type(ours.value) is type(theirs.value)
    assert (ours.value.line, ours.value.column) == (theirs.value.line, theirs.value.column)  # type: ignore[attr-defined]


def test_a_terminal_s_first_characters_include_every_start_of_a_match():
    lower = set("abcdefghijklmnopqrstuvwxyz")
    assert lalr.first_characters(r"[a-z_][a-zA-Z0-9_']*", 0) == lower | {"_"}
    assert lalr.first_characters(r"x?y|\d", 0) == {"x", "y"} | set("0123456789")
    assert lalr.first_characters(r"(?i:let)\b", 0) == {"l", "L"}
    assert lalr.first_characters(r"[^a-z]", 0) == {chr(c) for c in range(128)} - lower
    # any character, or a construct not followed, or a match of nothing: every terminal is tried
    assert lalr.first_characters(r".x", 0) is None
    assert lalr.first_characters(r"(a)\1", 0) == {"a"} and lalr.first_characters(r"\1a", 0) is None
    assert lalr.first_characters(r"a*", 0) is None
