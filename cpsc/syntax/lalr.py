"""A tighter driver for the LALR tables Lark computes for `grammar.lark` (beside it), loaded without Lark.

Lark's own loop looks each rule up by a Python-level hash and equality of its rule object,
and re-reads its fields, at every reduction; an FL expression climbs a dozen precedence
levels, each a reduction, so that loop was most of the parse stage. Here the table is
recoded once: a shift is the next state (an int), a reduction a tuple of the rule's length,
the name it reduces to and its callback, none for a unit rule `?a: b` (the value stays).

The recoded table is plain data (`ParseTables`), stored in the user's cache: a build loads it
in a few milliseconds, where making a `Lark` object, even from Lark's own cache, took 40.

Tokens come from Lark's lexers, by way of the root lexer (every terminal): when the root
lexer's token is one the parser's state accepts, the state's own lexer would have found the
same one (both try the terminals in the same order, the state's being a subset), so only a
token the state rejects is lexed again by the state's lexer, made when first needed. A build
then compiles the regular expressions of one lexer, not of one per state it meets. Lark's
callbacks (which build the AST) and its exceptions are used unchanged, so errors read as before.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass
from functools import partial
from typing import Any, Union

from lark import Lark, Token, Tree
from lark.common import LexerConf
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import BasicLexer, LexerState, TerminalDef, TextSlice, UnlessCallback
from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

Reduction = tuple[int, str, Union[Callable[[list[Any]], Any], None]]
Action = Union[int, Reduction]

# How a rule's callback is made from the AST builder's methods: ("method", name), Lark's
# ("tree", name) for a rule with no method, ("expand1", inner) for `?rule`, and
# ("filter", positions, inner) to drop punctuation and splice `_rule`s' children.
CallbackRecipe = tuple[Any, ...]


@dataclass(frozen=True)
class ParseTables:
    """Lark's LALR analysis of the grammar as plain data, to store and load."""

    states: dict[int, dict[str, int]]  # a shift: the next state (>= 0); a reduction: -1 - rule
    rules: list[tuple[int, str, CallbackRecipe]]  # length, the name it reduces to, its callback
    starts: dict[str, tuple[int, int]]  # a start symbol's first state and its accepting one
    terminals: list[TerminalDef]
    ignore: tuple[str, ...]
    # For each terminal, the ASCII characters a match may start with (None: any, or unsure).
    first_chars: dict[str, frozenset[str] | None]

    @staticmethod
    def from_lark(lark: Lark, methods: object) -> ParseTables:
        """The tables of `lark`, made with `methods` (an object whose attributes are the
        callbacks by rule name) as its transformer."""
        parser = lark.parser.parser.parser
        table = parser.parse_table
        method_names = {id(f): name for name, f in vars(methods).items()}
        rule_index: dict[int, int] = {}
        rules: list[tuple[int, str, CallbackRecipe]] = []
        states: dict[int, dict[str, int]] = {}
        for state, actions in table.states.items():
            row: dict[str, int] = {}
            for symbol, (action, argument) in actions.items():
                # Lark names rules with `Token`s, whose `==` is Python code: plain interned
                # strings make each reduction's lookup of the rule's name a C-level one
                symbol = sys.intern(str(symbol))
                if action is Shift:
                    row[symbol] = argument
                    continue
                if id(argument) not in rule_index:
                    rule_index[id(argument)] = len(rules)
                    recipe = _recipe(parser.callbacks[argument], method_names)
                    rules.append((len(argument.expansion), sys.intern(str(argument.origin.name)), recipe))
                row[symbol] = -1 - rule_index[id(argument)]
            states[state] = row
        conf = lark.lexer_conf
        first_chars = {t.name: first_characters(t.pattern.to_regexp(), conf.g_regex_flags)
                       for t in conf.terminals}
        starts = {str(name): (state, table.end_states[name]) for name, state in table.start_states.items()}
        return ParseTables(states, rules, starts, list(conf.terminals), tuple(conf.ignore), first_chars)


class NestedTooDeep(Exception):
    """The parse tree grew deeper than the limit at `token` (the lookahead)."""

    def __init__(self, token: Token) -> None:
        super().__init__(token)
        self.token = token


class LalrDriver:
    def __init__(self, tables: ParseTables, methods: object) -> None:
        reductions = [_reduction(size, origin, _callback(recipe, methods)) for size, origin, recipe in tables.rules]
        self.states: dict[int, dict[str, Action]] = {
            state: {symbol: action if action >= 0 else reductions[-1 - action] for symbol, action in row.items()}
            for state, row in tables.states.items()}
        self.starts = tables.starts
        self.lexers = _Lexers(tables)

    def parse(self, text: str, max_depth: int, start: str = "start") -> Any:
        """The value of `text` read as a `start` (a start symbol of the grammar);
        `NestedTooDeep` where its tree grows deeper than `max_depth`."""
        states = self.states
        first, accepting = self.starts[start]
        accepted = self.lexers.accepted
        tokens = _Tokens(self.lexers, text)
        state_stack = [first]
        value_stack: list[Any] = []
        # The depth of each value's tree (a token's is 0), for the limit: the stages after
        # the parser recurse over the tree, as deep as it is.
        depth_stack: list[int] = []
        token = None
        while True:
            token = tokens.next(accepted[state_stack[-1]], state_stack[-1])
            if token is None:
                break
            kind = token.type
            while True:
                action = states[state_stack[-1]].get(kind)
                if action is None:
                    raise self._unexpected(token, state_stack[-1])
                if isinstance(action, int):
                    state_stack.append(action)
                    value_stack.append(token)
                    depth_stack.append(0)
                    break
                if action[2] is None:  # a unit rule, most reductions: only the state moves
                    state_stack[-1] = states[state_stack[-2]][action[1]]  # type: ignore[assignment]
                    continue
                if self._reduce(action, state_stack, value_stack, depth_stack) > max_depth:
                    raise NestedTooDeep(token)
        last = tokens.last
        end = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
        while True:
            action = states[state_stack[-1]].get("$END")
            if action is None or isinstance(action, int):
                raise self._unexpected(end, state_stack[-1])
            if self._reduce(action, state_stack, value_stack, depth_stack) > max_depth:
                raise NestedTooDeep(end)
            if state_stack[-1] == accepting:
                return value_stack[-1]

    def _reduce(self, reduction: Reduction, state_stack: list[int], value_stack: list[Any],
                depth_stack: list[int]) -> int:
        """Reduces by the rule; the depth of the value made."""
        size, origin, callback = reduction
        if callback is None:  # a unit rule `?a: b`: the value stays, only the state moves
            state_stack[-1] = self.states[state_stack[-2]][origin]  # type: ignore[assignment]
            return depth_stack[-1]
        if size:
            children = value_stack[-size:]
            depth = 1 + max(depth_stack[-size:])
            del state_stack[-size:]
            del value_stack[-size:]
            del depth_stack[-size:]
        else:
            children = []
            depth = 1
        state_stack.append(self.states[state_stack[-1]][origin])  # type: ignore[arg-type]
        value_stack.append(callback(children))
        depth_stack.append(depth)
        return depth

    def _unexpected(self, token: Token, state: int) -> UnexpectedToken:
        expected = {symbol for symbol in self.states[state] if symbol.isupper()}
        return UnexpectedToken(token, expected)


class _Lexers:
    """Lark's lexer of every terminal, and those of the terminals each state accepts (made
    when first needed), each with its `_Scanner` for `_Tokens`' own loop."""

    def __init__(self, tables: ParseTables) -> None:
        self.conf = LexerConf(tables.terminals, re, tables.ignore, skip_validation=True)
        self.root = BasicLexer(self.conf)
        self.first_chars = tables.first_chars
        self.root_scanner = _Scanner(self.root, self.first_chars)
        terminal_names = {t.name for t in tables.terminals}
        self.accepted = {state: frozenset(row.keys() & terminal_names | set(tables.ignore))
                         for state, row in tables.states.items()}
        self._made: dict[frozenset[str], tuple[BasicLexer, _Scanner]] = {}

    def of_state(self, state: int) -> tuple[BasicLexer, _Scanner]:
        accepted = self.accepted[state]
        if accepted not in self._made:
            conf = copy(self.conf)
            conf.terminals = [t for t in self.conf.terminals if t.name in accepted]
            lexer = BasicLexer(conf)
            self._made[accepted] = lexer, _Scanner(lexer, self.first_chars)
        return self._made[accepted]


def first_characters(regexp: str, flags: int) -> frozenset[str] | None:
    """The ASCII characters a match of `regexp` may start with; None for any character, or
    where the expression has a construct this does not follow (a larger set is always safe)."""
    try:
        parsed = re._parser.parse(regexp, flags)  # type: ignore[attr-defined]
    except re.error:
        return None
    found, may_be_empty = _first_of_sequence(list(parsed), flags | parsed.state.flags)
    return None if found is None or may_be_empty else frozenset(found)


_ASCII = [chr(c) for c in range(128)]
_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit, "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_SPACE": lambda c: c in " \t\n\r\f\v", "CATEGORY_NOT_SPACE": lambda c: c not in " \t\n\r\f\v",
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_", "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
}


def _first_of_sequence(items: list[Any], flags: int) -> tuple[set[str] | None, bool]:
    """The first characters of a sequence of items, and whether it may match nothing."""
    found: set[str] = set()
    for op, argument in items:
        first, may_be_empty = _first_of_item(str(op), argument, flags)
        if first is None:
            return None, False
        found |= first
        if not may_be_empty:
            return found, False
    return found, True


def _first_of_item(op: str, argument: Any, flags: int) -> tuple[set[str] | None, bool]:
    if op == "LITERAL":
        char = chr(argument)
        return ({char.lower(), char.upper()} if flags & re.IGNORECASE else {char}), False
    if op == "IN":
        chars = _charset(argument)
        if chars is not None and flags & re.IGNORECASE:
            chars |= {c.swapcase() for c in chars}
        return chars, False
    if op in ("AT", "ASSERT", "ASSERT_NOT"):  # zero width: the next item decides
        return set(), True
    if op == "SUBPATTERN":
        return _first_of_sequence(list(argument[3]), flags | argument[1])
    if op == "ATOMIC_GROUP":
        return _first_of_sequence(list(argument), flags)
    if op == "BRANCH":
        found: set[str] = set()
        any_empty = False
        for branch in argument[1]:
            first, may_be_empty = _first_of_sequence(list(branch), flags)
            if first is None:
                return None, False
            found |= first
            any_empty = any_empty or may_be_empty
        return found, any_empty
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, item = argument
        first, may_be_empty = _first_of_sequence(list(item), flags)
        return first, may_be_empty or low == 0
    return None, False  # ANY, NOT_LITERAL, back references, ...: any character


def _charset(items: list[Any]) -> set[str] | None:
    chars: set[str] = set()
    negate = False
    for op, argument in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.add(chr(argument))
        elif name == "RANGE":
            chars.update(c for c in _ASCII if argument[0] <= ord(c) <= argument[1])
        elif name == "CATEGORY" and str(argument) in _CATEGORIES:
            chars.update(filter(_CATEGORIES[str(argument)], _ASCII))
        else:
            return None
    return {c for c in _ASCII if c not in chars} if negate else chars


class _Scanner:
    """What `_Tokens` needs of one Lark lexer: its regular expressions (tried in order, as
    Lark's), the terminals it ignores or that may hold a newline, its keywords and callbacks."""

    def __init__(self, lexer: BasicLexer, first_chars: dict[str, frozenset[str] | None]) -> None:
        self.patterns = [mre.match for mre in lexer.scanner._mres]
        # By the next character, the expression of only the terminals that may start with it
        # (in Lark's order, so the same one matches first): made when the character is first met.
        self.terminals: list[TerminalDef] = list(lexer.scanner.terminals)
        self.regex_flags: int = lexer.scanner.g_regex_flags
        self.first_chars = first_chars
        self.by_char: dict[str, list[Callable[[str, int], re.Match[str] | None]]] = {}
        self.by_terminals: dict[tuple[str, ...], list[Callable[[str, int], re.Match[str] | None]]] = {}
        self.ignore = lexer.ignore_types
        self.newline_types = lexer.newline_types
        # White space, between most tokens, is skipped by its own expression, not the
        # alternation of every terminal (no other terminal starts with white space).
        white = [t for t in lexer.terminals if t.name in lexer.ignore_types]
        self.white_space_name = white[0].name if white else ""
        self.white_space = re.compile(white[0].pattern.to_regexp()).match if white else None
        self.white_chars = frozenset(c for c in map(chr, range(256))
                                     if self.white_space is not None and self.white_space(c))
        # A keyword is an identifier that is exactly one of the grammar's strings (Lark's
        # `UnlessCallback` finds it with a full match of those strings): a dict look-up.
        self.keywords: dict[str, dict[str, str]] = {}
        self.callbacks: dict[str, Callable[[Token], Token]] = {}
        for name, callback in lexer.callback.items():
            strings = _keyword_strings(callback)
            if strings is None:
                self.callbacks[name] = callback
            else:
                self.keywords[name] = strings

    def patterns_for(self, char: str) -> list[Callable[[str, int], re.Match[str] | None]]:
        """The expressions to try where the text goes on with `char`."""
        patterns = self.by_char.get(char)
        if patterns is None:
            patterns = self.by_char[char] = _patterns_for(self, char)
        return patterns


def _patterns_for(scanner: _Scanner, char: str) -> list[Callable[[str, int], re.Match[str] | None]]:
    if char >= "\x80":
        return scanner.patterns
    terminals = tuple(t for t in scanner.terminals
                      if (first := scanner.first_chars.get(t.name)) is None or char in first)
    key = tuple(t.name for t in terminals)
    if key not in scanner.by_terminals:  # the letters share one, the digits another: compiled once
        scanner.by_terminals[key] = _alternation(scanner, terminals)
    return scanner.by_terminals[key]


def _alternation(scanner: _Scanner, terminals: tuple[TerminalDef, ...]) -> list[Callable[[str, int], re.Match[str] | None]]:
    if not terminals:
        return []
    try:
        regexp = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
        return [re.compile(regexp, scanner.regex_flags).match]
    except (re.error, AssertionError):  # more groups than `re` takes
        return scanner.patterns


def _recipe(callback: Any, method_names: dict[int, str]) -> CallbackRecipe:
    if isinstance(callback, ChildFilterLALR_NoPlaceholders):
        return "filter", tuple(callback.to_include), _recipe(callback.node_builder, method_names)
    if isinstance(callback, ExpandSingleChild):
        return "expand1", _recipe(callback.node_builder, method_names)
    if isinstance(callback, partial) and callback.func is Tree and not callback.keywords:
        return ("tree", *callback.args)
    if id(callback) in method_names:
        return "method", method_names[id(callback)]
    raise ValueError(f"a parser callback the tables cannot store: {callback!r}")


class _ChildFilter:
    """Lark's `ChildFilterLALR_NoPlaceholders`, with the driver: the children a rule keeps,
    those of inlined `_rule`s spliced in, handed to the builder."""

    def __init__(self, to_include: list[tuple[int, bool]], node_builder: Callable[[list[Any]], Any]) -> None:
        self.to_include = to_include
        self.node_builder = node_builder

    def __call__(self, children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, to_expand in self.to_include:
            if not to_expand:
                filtered.append(children[i])
            elif filtered:
                filtered += children[i].children
            else:  # left recursion: the inlined rule's list, taken over (no one else holds it)
                filtered = children[i].children
        return self.node_builder(filtered)


class _ExpandSingleChild:
    """Lark's `ExpandSingleChild`, with the driver: a rule `?a: ...` with one child is the child."""

    def __init__(self, node_builder: Callable[[list[Any]], Any]) -> None:
        self.node_builder = node_builder

    def __call__(self, children: list[Any]) -> Any:
        return children[0] if len(children) == 1 else self.node_builder(children)


def _callback(recipe: CallbackRecipe, methods: object) -> Callable[[list[Any]], Any]:
    kind = recipe[0]
    if kind == "filter":
        return _ChildFilter([(i, expand) for i, expand in recipe[1]], _callback(recipe[2], methods))
    if kind == "expand1":
        return _ExpandSingleChild(_callback(recipe[1], methods))
    if kind == "tree":
        return partial(Tree, *recipe[1:])
    return getattr(methods, recipe[1])  # type: ignore[no-any-return]


def _reduction(size: int, origin: str, callback: Callable[[list[Any]], Any]) -> Reduction:
    """A rule's length, the name it reduces to and its callback; None for a rule `?a: b`,
    whose callback would hand its one child on (most of the reductions: an expression climbs
    every precedence level)."""
    unit = size == 1 and isinstance(callback, _ExpandSingleChild)
    return size, origin, None if unit else callback


def _keyword_strings(callback: Any) -> dict[str, str] | None:
    """The strings an `UnlessCallback` turns an identifier into, by value (None: another
    kind of callback, or terminals other than plain strings)."""
    if not isinstance(callback, UnlessCallback):
        return None
    strings = {}
    for terminal in callback.scanner.terminals:
        if terminal.pattern.type != "str" or terminal.pattern.flags:
            return None
        strings[terminal.pattern.value] = terminal.name
    return strings


def _token(kind: str, value: str, start: int, line: int, column: int, end_line: int, end_column: int,
           end: int) -> Token:
    """`Token(kind, value, ...)`, made as Lark's own constructor makes it, without its two
    Python calls that dispatch on how it was called."""
    token = str.__new__(Token, value)
    token.type, token.value, token.start_pos, token.end_pos = kind, value, start, end
    token.line, token.column, token.end_line, token.end_column = line, column, end_line, end_column
    return token


class _Tokens:
    """The token stream of one parse, as Lark's contextual lexer gives it, from a loop of its
    own over the lexers' regular expressions (Lark's `next_token` costs a dozen Python calls a
    token). The root lexer's token stands when the parser's state accepts it (the state's
    lexer, trying a subset of the same terminals in the same order, would find the same one);
    else the state's terminals are tried from the same place; and where none matches, Lark's
    own lexer raises its error."""

    def __init__(self, lexers: _Lexers, text: str) -> None:
        self.lexers = lexers
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0  # where the current line starts
        self.last: Token | None = None

    def next(self, accepted: frozenset[str], state: int) -> Token | None:
        """The next token for a parser in `state`, which accepts the terminals `accepted`
        (None at the end of the text)."""
        start = self.pos, self.line, self.line_start
        token = self._scan(self.lexers.root_scanner)
        if token is None and self.pos >= len(self.text):
            return None
        if token is None or token.type not in accepted:
            self.pos, self.line, self.line_start = start
            token = self._scan(self.lexers.of_state(state)[1])
            if token is None:  # no terminal of the state matches: Lark's lexer says why
                self.pos, self.line, self.line_start = start
                token = self._state_lexer(state)
        self.last = token
        return token

    def _scan(self, scanner: _Scanner) -> Token | None:
        """The scanner's next token (None: no terminal matches, or the text ends)."""
        text = self.text
        end = len(text)
        pos, line, line_start = self.pos, self.line, self.line_start
        white_chars, newline_types, ignore = scanner.white_chars, scanner.newline_types, scanner.ignore
        token = None
        while pos < end:
            match = None
            if text[pos] in white_chars:
                match = scanner.white_space(text, pos)  # type: ignore[misc]
            else:
                for pattern in scanner.patterns_for(text[pos]):
                    match = pattern(text, pos)
                    if match:
                        break
            if not match:
                break
            kind = match.lastgroup or scanner.white_space_name
            value = match.group()
            start, start_line, column = pos, line, pos - line_start + 1
            if kind in newline_types and "\n" in value:
                line += value.count("\n")
                line_start = start + value.rindex("\n") + 1
            pos = start + len(value)
            if kind in ignore:
                continue
            keywords = scanner.keywords.get(kind)
            if keywords is not None:
                kind = keywords.get(value, kind)
            token = _token(kind, value, start, start_line, column, line, pos - line_start + 1, pos)
            callback = scanner.callbacks.get(kind)
            if callback is not None:
                token = callback(token)
            break
        self.pos, self.line, self.line_start = pos, line, line_start
        return token

    def _state_lexer(self, state: int) -> Token | None:
        """The state's own Lark lexer, from the current place."""
        lexer_state = LexerState(TextSlice.cast_from(self.text), None, self.last)
        counter = lexer_state.line_ctr
        counter.char_pos, counter.line, counter.line_start_pos = self.pos, self.line, self.line_start
        counter.column = self.pos - self.line_start + 1
        try:
            token = self.lexers.of_state(state)[0].next_token(lexer_state, None)
        except EOFError:
            token = None
        except UnexpectedCharacters as error:
            raise self._unexpected_characters(error, lexer_state) from None
        self.pos, self.line, self.line_start = counter.char_pos, counter.line, counter.line_start_pos
        self.last = token
        return token

    def _unexpected_characters(self, error: UnexpectedCharacters, lexer_state: LexerState) -> Exception:
        """As Lark's contextual lexer: text some terminal matches, though not here, is an
        unexpected token; text none matches, unexpected characters."""
        try:
            token = self.lexers.root.next_token(lexer_state, None)
        except UnexpectedCharacters:
            return error
        return UnexpectedToken(token, error.allowed)
