"""A tighter driver for the LALR tables Lark computes for `lang/grammar.lark`.

Lark's own loop looks each rule up by a Python-level hash and equality of its rule object,
and re-reads its fields, at every reduction; an FL expression climbs a dozen precedence
levels, each a reduction, so that loop was most of the parse stage. Here the table is
recoded once: a shift is the next state (an int), a reduction a tuple of the rule's length,
the name it reduces to and its callback, none for a unit rule `?a: b` (the value stays). Lark's contextual lexer, its callbacks (which build
the AST) and its exceptions are used unchanged, so errors read as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import LexerState, TextSlice
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

Reduction = tuple[int, str, Union[Callable[[list[Any]], Any], None]]
Action = Union[int, Reduction]


class LalrDriver:
    def __init__(self, lark: Lark, start: str = "start") -> None:
        frontend = lark.parser
        parser = frontend.parser.parser
        table = parser.parse_table
        self.lexer = frontend.lexer
        reductions: dict[int, Reduction] = {}
        self.states: dict[int, dict[str, Action]] = {}
        for state, actions in table.states.items():
            row: dict[str, Action] = {}
            for symbol, (action, argument) in actions.items():
                if action is Shift:
                    row[symbol] = argument
                else:
                    row[symbol] = reductions.setdefault(id(argument), _reduction(argument, parser.callbacks[argument]))
            self.states[state] = row
        self.start = table.start_states[start]
        self.end = table.end_states[start]

    def parse(self, text: str) -> Any:
        states = self.states
        lexers = self.lexer.lexers
        lexer_state = LexerState(TextSlice.cast_from(text))
        state_stack = [self.start]
        value_stack: list[Any] = []
        token = None
        while True:
            try:
                token = lexers[state_stack[-1]].next_token(lexer_state, None)
            except EOFError:
                break
            except UnexpectedCharacters as error:
                raise self._unexpected_characters(error, lexer_state) from None
            kind = token.type
            while True:
                action = states[state_stack[-1]].get(kind)
                if action is None:
                    raise self._unexpected(token, state_stack[-1])
                if isinstance(action, int):
                    state_stack.append(action)
                    value_stack.append(token)
                    break
                self._reduce(action, state_stack, value_stack)
        end = Token.new_borrow_pos("$END", "", token) if token is not None else Token("$END", "", 0, 1, 1)
        while True:
            action = states[state_stack[-1]].get("$END")
            if action is None or isinstance(action, int):
                raise self._unexpected(end, state_stack[-1])
            self._reduce(action, state_stack, value_stack)
            if state_stack[-1] == self.end:
                return value_stack[-1]

    def _reduce(self, reduction: Reduction, state_stack: list[int], value_stack: list[Any]) -> None:
        size, origin, callback = reduction
        if callback is None:  # a unit rule `?a: b`: the value stays, only the state moves
            state_stack[-1] = self.states[state_stack[-2]][origin]  # type: ignore[assignment]
            return
        if size:
            children = value_stack[-size:]
            del state_stack[-size:]
            del value_stack[-size:]
        else:
            children = []
        state_stack.append(self.states[state_stack[-1]][origin])  # type: ignore[arg-type]
        value_stack.append(callback(children))

    def _unexpected(self, token: Token, state: int) -> UnexpectedToken:
        expected = {symbol for symbol in self.states[state] if symbol.isupper()}
        return UnexpectedToken(token, expected)

    def _unexpected_characters(self, error: UnexpectedCharacters, lexer_state: LexerState) -> Exception:
        """As Lark's contextual lexer: text some terminal matches, though not here, is an
        unexpected token; text none matches, unexpected characters."""
        try:
            token = self.lexer.root_lexer.next_token(lexer_state, None)
        except UnexpectedCharacters:
            return error
        return UnexpectedToken(token, error.allowed)


def _reduction(rule: Any, callback: Callable[[list[Any]], Any]) -> Reduction:
    """A rule's length, the name it reduces to and its callback; None for a rule `?a: b`,
    whose callback would hand its one child on (most of the reductions: an expression climbs
    every precedence level)."""
    unit = len(rule.expansion) == 1 and isinstance(callback, ExpandSingleChild)
    return len(rule.expansion), rule.origin.name, None if unit else callback
