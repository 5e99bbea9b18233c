"""The rules of expressions (with labelled parameters and arguments)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.desugar import (
    ExceptionCase,
    forcing_case,
    function_after_prefix,
    is_sized_literal,
    match_with_exceptions,
    no_exception_cases,
    recursive_lazy,
)
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.rules.base import LOCATION_NAMES, LOCATION_OF, PRINTER_ENDINGS
from cpsc.syntax.rules.parts import (
    INDEX_SET,
    STDLIB_PREFIX,
    Field,
    Labelled,
    Parameter,
    ReturnAnnot,
    curried_function,
    index_operator,
    is_index_operator,
    label_of,
    unqualified_constructor,
    without_stdlib,
)
from cpsc.syntax.rules.patterns import PatternRules
from cpsc.syntax.units import unit_name


class ExpressionRules(PatternRules):
    """Expressions, labelled parameters and arguments."""

    # ---------------------------------------------------------------- expressions
    def sequence(self, first: ast.Expr, second: ast.Expr) -> ast.Expr:
        return ast.Seq(first, second, self._span((first, second)))

    def trailing_semi(self, expr: ast.Expr) -> ast.Expr:
        return expr

    def let_in(self, *parts: Any) -> ast.Expr:
        is_rec, bindings = self._rec_bindings(parts[:-1])
        span = self._span(parts)
        for binding in bindings:  # (a local `: 'a. t` is read as `: t`)
            self.polymorphic.pop(id(binding), None)
        prefixed = function_after_prefix(bindings) if is_rec else None
        if prefixed is not None:  # `let rec f = let ... in fun x -> ...`
            is_rec, bindings = False, (prefixed,)
        lazy = recursive_lazy(is_rec, bindings)
        if lazy is not None:  # `let rec x = lazy e in body`
            body = parts[-1]
            for delay in reversed(lazy.delays):
                body = ast.Seq(delay, body, span)
            if lazy.functions:
                body = ast.Let(True, lazy.functions, body, span)
            return ast.Let(False, lazy.pending, body, span)
        functions, values = ast.split_recursive_values(bindings) if is_rec else (bindings, ())
        if not values:
            return ast.Let(is_rec, bindings, parts[-1], span)
        body = ast.Let(False, values, parts[-1], span)
        return ast.Let(True, functions, body, span) if functions else body

    def letop_in(self, letop: Token, *parts: Any) -> ast.Expr:
        """`let* p1 = e1 and* p2 = e2 in body`: `( let* ) (( and* ) e1 e2) (fun (p1, p2) -> body)`,
        as OCaml's binding operators are."""
        first, *rest, body = parts
        value, pattern = first.value, first.pattern
        for operator, binding in zip(rest[::2], rest[1::2]):
            span = self._span((value, binding))
            value = ast.App(ast.App(ast.Var(str(operator), self._tok_span(operator)), value, span), binding.value, span)
            pattern = ast.PTuple((pattern, binding.pattern), self._span((pattern, binding.pattern)))
        span = self._span((letop, body))
        continuation = curried_function([pattern], body, self._span((first, body)))
        return ast.App(ast.App(ast.Var(str(letop), self._tok_span(letop)), value, span), continuation, span)

    def lambda_(self, fun: Token, *parts: Any) -> ast.Expr:
        span = self._span((fun, parts[-1]))
        *params, body = parts
        if params and isinstance(params[-1], ReturnAnnot):
            annot = params.pop()
            body = ast.Annot(body, annot.type, annot.span)
        return curried_function(params, body, span)

    def match(self, keyword: Token, scrutinee: ast.Expr, cases: tuple[Any, ...]) -> ast.Expr:
        span = self._span((keyword, cases[-1]))
        if not any(isinstance(c, ExceptionCase) for c in cases):
            return ast.Match(scrutinee, cases, span)
        if all(isinstance(c, ExceptionCase) for c in cases):
            raise CompileError(span, "None of the patterns in this 'match' expression match values.")
        return match_with_exceptions(scrutinee, cases, span)

    def function(self, keyword: Token, cases: tuple[Any, ...]) -> ast.Expr:
        """`function cases` is `fun x -> match x with cases` (x a name no program can write)."""
        span = self._span((keyword, cases[-1]))
        no_exception_cases(cases)
        arg = "%arg"
        return ast.Fun(ast.PVar(arg, span), ast.Match(ast.Var(arg, span), cases, span), span)

    def try_with(self, keyword: Token, body: ast.Expr, cases: tuple[Any, ...]) -> ast.Expr:
        no_exception_cases(cases)
        span = self._span((keyword, cases[-1]))
        handler = ast.Match(ast.Var(ast.EXCEPTION_VAR, span), cases, span, reraise=True)
        return ast.Try(body, handler, span)

    def lazy_expr(self, keyword: Token, value: ast.Expr) -> ast.Expr:
        """`lazy e`: `Lazy.from_fun (fun () -> e)`; of a constant, a constant constructor or a
        variable, `Lazy.from_val e`, a value already forced, as OCaml compiles it."""
        span = self._span((keyword, value))
        if isinstance(value, (ast.Const, ast.Var)) or isinstance(value, ast.Construct) and not value.args:
            return ast.App(ast.Var("Lazy.from_val", span), value, span)
        return ast.App(ast.Var("Lazy.from_fun", span), ast.Fun(ast.PUnit(span), value, span), span)

    def assert_expr(self, keyword: Token, condition: ast.Expr) -> ast.Expr:
        """`assert e` is `if e then () else raise (Assert_failure (file, line, column))`, and
        `assert false` (of any type) the raise alone, as in OCaml."""
        span = self._span((keyword, condition))
        at = self._tok_span(keyword)
        location = ast.Tuple((ast.Const(self.file, "string", at), ast.Const(at.line, "int", at),
                              ast.Const(at.col - 1, "int", at)), at)
        failure = ast.App(ast.Var("raise", at), ast.Construct("Assert_failure", (location,), at), span)
        if isinstance(condition, ast.Const) and condition.value is False:
            return failure
        return ast.If(condition, ast.Const(None, "unit", span), failure, span)

    def match_cases(self, *cases: Any) -> tuple[Any, ...]:  # (`ExceptionCase`s too)
        return tuple(c for case in cases for c in (case if isinstance(case, list) else (case,)))

    def match_case(self, pattern: ast.Pattern, *rest: ast.Expr) -> ast.Case:
        guard = rest[0] if len(rest) == 2 else None
        return forcing_case(ast.Case(pattern, guard, rest[-1], self._span((pattern, rest[-1]))))

    def cons(self, head: ast.Expr, op: Token, tail: ast.Expr) -> ast.Expr:
        span = self._span((head, tail))
        return ast.Construct("::", (ast.Tuple((head, tail), span),), span)

    def constructor(self, name: Token) -> ast.Expr:
        return ast.Construct(unqualified_constructor(self._qualified(str(name))), (), self._tok_span(name))

    def qualified_var(self, name: Token) -> ast.Expr:
        self.names_printer = self.names_printer or str(name).endswith(PRINTER_ENDINGS)
        written = str(name)
        qualified = self._qualified(without_stdlib(written))
        if qualified != written:
            # `Stdlib.x`: the prelude's x even where the program hides it (the elaborator's)
            self.module_expressions = True
            return ast.Var(STDLIB_PREFIX + qualified, self._tok_span(name))
        return ast.Var(qualified, self._tok_span(name))

    def qualified_operator(self, name: Token, opening: Token, operator: ast.PVar, closing: Token) -> ast.Expr:
        """`M.( + )`: the operator M defines (`Stdlib.( + )`: the prelude's)."""
        written = f"{name}.{operator.name}"
        qualified = self._qualified(without_stdlib(written))
        if qualified != written and "." not in qualified:  # as `qualified_var`'s
            self.module_expressions = True
            qualified = STDLIB_PREFIX + qualified
        return ast.Var(qualified, self._span((name, closing)))

    def local_open(self, name: Token, opening: Token, body: ast.Expr, closing: Token) -> ast.Expr:
        """`M.(e)`: `let open M in e`."""
        if str(name) == "Stdlib":
            return body
        self.module_expressions = True
        self.module_paths.add(str(name))
        return ast.LocalOpen(str(name), body, self._span((name, closing)))

    def empty_list(self, opening: Token, closing: Token) -> ast.Expr:
        return ast.Construct("[]", (), self._span((opening, closing)))

    def list_literal(self, opening: Token | ast.Expr, items: list[ast.Expr], closing: Token) -> ast.Expr:
        """`[a; b; c]` is `a :: (b :: (c :: []))`, built from the end in a loop."""
        span = self._span((opening, closing))
        result: ast.Expr = ast.Construct("[]", (), Span(span.file, span.end_line, span.end_col - 1,
                                                          span.end_line, span.end_col))
        for index in range(len(items) - 1, -1, -1):
            item = items[index]
            # the whole list is the first cell, as OCaml locates it (a diagnostic's caret is at `[`)
            cell = span if index == 0 else Span(span.file, item.span.line, item.span.col, span.end_line, span.end_col)
            result = ast.Construct("::", (ast.Tuple((item, result), cell),), cell)
        return result

    def list_items(self, *items: ast.Expr) -> list[ast.Expr]:
        return list(items)

    def empty_array(self, opening: Token, closing: Token) -> ast.Expr:
        return ast.ArrayLit((), self._span((opening, closing)))

    def array_literal(self, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return ast.ArrayLit(tuple(items), self._span((opening, closing)))

    def record(self, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return ast.Record(tuple(fields), None, self._span((opening, closing)))

    def record_with(self, opening: Token, base: ast.Expr, fields: list[Field], closing: Token) -> ast.Expr:
        return ast.Record(tuple(fields), base, self._span((opening, closing)))

    def field_binds(self, *fields: Field) -> list[Field]:
        return list(fields)

    def field_bind(self, name: Token, value: ast.Expr) -> Field:
        return self._qualified(str(name)), value  # (`{ M.x = e }`: M's x, found by the module language)

    def field_pun(self, name: Token) -> Field:
        """`{ x }`, `{ M.x }`: the field given the variable of its name."""
        return self._qualified(str(name)), ast.Var(str(name).rpartition(".")[2], self._tok_span(name))

    def field_get(self, record: ast.Expr, name: Token) -> ast.Expr:
        """`r.f`, `r.M.f` (M's f, found by the module language)."""
        return ast.GetField(record, self._qualified(str(name)), self._span((record, name)))

    def array_get(self, target: ast.Expr, index: ast.Expr, closing: Token) -> ast.Expr:
        """`a.(i)` is `Array.get a i`, as in OCaml; `M.(e)` with M a module opens M in e."""
        if isinstance(target, ast.Construct) and not target.args:  # `A.B.(e)`: a constructor has no `.( )`
            self.module_expressions = True
            return ast.LocalOpen(target.name, index, self._span((target, closing)))
        return self._call("Array.get", target, (target, index), closing)

    def index_get(self, target: ast.Expr, operator: Token, index: ast.Expr, closing: Token) -> ast.Expr:
        """`a.%(i)`, `a.%[i]`, `a.%{i}`: the index operator `( .%() )` (etc.) applied to a and i;
        `a.%{i; j}`: `( .%{;..} )` applied to a and `[|i; j|]`, as OCaml reads several indices."""
        if isinstance(index, ast.Seq):
            items: list[ast.Expr] = []
            while isinstance(index, ast.Seq):
                items.append(index.first)
                index = index.second
            indices = ast.ArrayLit((*items, index), self._span((items[0], index)))
            return self._call(index_operator(str(operator), str(closing), multi=True), target, (target, indices), closing)
        return self._call(index_operator(str(operator), str(closing)), target, (target, index), closing)

    def string_get(self, target: ast.Expr, index: ast.Expr, closing: Token) -> ast.Expr:
        """`s.[i]`; `M.[a; b]` with M a module: the list, M opened in it."""
        if isinstance(target, ast.Construct) and not target.args:
            items: list[ast.Expr] = []
            while isinstance(index, ast.Seq):  # (the items were read as a sequence)
                items.append(index.first)
                index = index.second
            literal = self.list_literal(target, [*items, index], closing)
            return self._opened(target, literal, closing)
        return self._call("String.get", target, (target, index), closing)

    def _opened(self, target: ast.Expr, literal: ast.Expr, closing: Token) -> ast.Expr:
        """`M.{ ... }`, `M.[ ... ]`, `M.[| ... |]`: the literal, with module M opened in it."""
        if not (isinstance(target, ast.Construct) and not target.args):
            raise CompileError(literal.span, "Syntax error: a module path is expected before `.` here")
        if target.name == "Stdlib":
            return literal
        self.module_expressions = True
        self.module_paths.add(target.name)
        return ast.LocalOpen(target.name, literal, self._span((target, closing)))

    # `M.{ ... }`... with M a single name (`A.B.{ ... }` is the `opened_` rules')
    def module_record(self, name: Token, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return self.opened_record(self.constructor(name), opening, fields, closing)

    def module_record_with(self, name: Token, opening: Token, base: ast.Expr, fields: list[Field],
                           closing: Token) -> ast.Expr:
        return self.opened_record_with(self.constructor(name), opening, base, fields, closing)

    def module_list(self, name: Token, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self._opened(self.constructor(name), self.list_literal(opening, items, closing), closing)

    def module_empty_list(self, name: Token, opening: Token, closing: Token) -> ast.Expr:
        return self.opened_empty_list(self.constructor(name), opening, closing)

    def module_array(self, name: Token, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self.opened_array(self.constructor(name), opening, items, closing)

    def module_empty_array(self, name: Token, opening: Token, closing: Token) -> ast.Expr:
        return self.opened_empty_array(self.constructor(name), opening, closing)

    def opened_record(self, target: ast.Expr, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return self._opened(target, self.record(opening, fields, closing), closing)

    def opened_record_with(self, target: ast.Expr, opening: Token, base: ast.Expr, fields: list[Field],
                           closing: Token) -> ast.Expr:
        return self._opened(target, self.record_with(opening, base, fields, closing), closing)

    def opened_empty_list(self, target: ast.Expr, opening: Token, closing: Token) -> ast.Expr:
        return self._opened(target, self.empty_list(opening, closing), closing)

    def opened_array(self, target: ast.Expr, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self._opened(target, self.array_literal(opening, items, closing), closing)

    def opened_empty_array(self, target: ast.Expr, opening: Token, closing: Token) -> ast.Expr:
        return self._opened(target, self.empty_array(opening, closing), closing)

    def _call(self, name: str, first: Any, args: tuple[ast.Expr, ...], last: Any) -> ast.Expr:
        span = self._span((first, last))
        result: ast.Expr = ast.Var(name, span)
        for arg in args:
            result = ast.App(result, arg, span)
        return result

    def while_loop(self, keyword: Token, condition: ast.Expr, body: ast.Expr, done: Token) -> ast.Expr:
        return ast.While(condition, body, self._span((keyword, done)))

    def for_loop(self, keyword: Token, var: Token, start: ast.Expr, direction: Token, stop: ast.Expr,
                 body: ast.Expr, done: Token) -> ast.Expr:
        return ast.For(str(var), start, stop, str(direction) == "to", body, self._span((keyword, done)))

    def if_else(self, keyword: Token, cond: ast.Expr, then: ast.Expr, other: ast.Expr) -> ast.Expr:
        return ast.If(cond, then, other, self._span((keyword, other)))

    def if_then(self, keyword: Token, cond: ast.Expr, then: ast.Expr) -> ast.Expr:
        span = self._span((keyword, then))
        return ast.If(cond, then, ast.Const(None, "unit", span), span)

    def binop(self, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Expr:
        span = self._span((left, right))
        name = str(op)
        if name in ("&&", "&"):
            return ast.If(left, right, ast.Const(False, "bool", span), span)
        if name in ("||", "or"):
            return ast.If(left, ast.Const(True, "bool", span), right, span)
        if name == "<-":
            return self.assignment(left, right, span)
        operator = ast.Var(name, self._tok_span(op))
        return ast.App(ast.App(operator, left, span), right, span)

    def assignment(self, target: ast.Expr, value: ast.Expr, span: Span) -> ast.Expr:
        """`r.x <- e` and `a.(i) <- e` (which is `Array.set a i e`, as in OCaml)."""
        if isinstance(target, ast.GetField):
            return ast.SetField(target.record, target.name, value, span)
        if isinstance(target, ast.App) and isinstance(target.function, ast.App) \
                and isinstance(target.function.function, ast.Var):
            getter, args = target.function.function.name, (target.function.argument, target.argument, value)
            if getter == "Array.get":
                return self._call("Array.set", target, args, value)
            if is_index_operator(getter) and not getter.endswith(INDEX_SET):  # `a.%(i) <- v`: `( .%()<- ) a i v`
                return self._call(getter + INDEX_SET, target, args, value)
        raise CompileError(target.span, "This expression cannot be assigned with <-: only a mutable "
                           "record field r.x or an array element a.(i) can")

    def tuple(self, *items: ast.Expr) -> ast.Expr:
        return ast.Tuple(items, self._span(items))

    def negate(self, op: Token, operand: ast.Expr) -> ast.Expr:
        span = self._span((op, operand))
        if isinstance(operand, ast.Const) and operand.kind in ("int", "float") and str(op) == "-":
            return ast.Const(-operand.value, operand.kind, span)  # type: ignore[operator]
        if isinstance(operand, ast.Const) and operand.kind == "float":
            return ast.Const(-operand.value, "float", span)  # type: ignore[operator]
        if is_sized_literal(operand) and str(op) == "-":  # `-5L`
            assert isinstance(operand, ast.App) and isinstance(operand.argument, ast.Const)
            return replace(operand, argument=ast.Const(-operand.argument.value, "int", span), span=span)
        name = "~-." if str(op) == "-." else "~-"
        return ast.App(ast.Var(name, self._tok_span(op)), operand, span)

    def positive(self, op: Token, operand: ast.Expr) -> ast.Expr:
        """`+e` and `+.e`, OCaml's prefix plus: a literal's sign (`+3`, `+2.0`, `+5L`), else the
        identity on ints (`~+`) or floats (`~+.`), here `(e : int)` or `(e : float)`."""
        sign = str(op)
        if sign not in ("+", "+."):
            raise CompileError(self._tok_span(op), "Syntax error")
        span = self._span((op, operand))
        if isinstance(operand, ast.Const) and (operand.kind == "float" or (operand.kind == "int" and sign == "+")):
            return replace(operand, span=span)
        if is_sized_literal(operand) and sign == "+":
            return replace(operand, span=span)
        return ast.Annot(operand, ast.TyName("float" if sign == "+." else "int", (), self._tok_span(op)), span)

    def ppos_literal(self, op: Token, tok: Token) -> ast.Pattern:
        """`+3`, `+2.0` in a pattern (OCaml's signed constants)."""
        if str(op) != "+":
            raise CompileError(self._tok_span(op), "Syntax error")
        literal = self.pfloat(tok) if tok.type == "FLOAT" else self.pint(tok)
        assert isinstance(literal, ast.PConst)
        return replace(literal, span=self._span((op, tok)))

    def apply(self, function: ast.Expr, *arguments: ast.Expr | Labelled) -> ast.Expr:
        """`f a1 ... an`, the whole spine at once so that labelled arguments can be ordered."""
        for argument in arguments:
            if isinstance(argument, Labelled):  # put in positional order by the type checker
                function = ast.App(function, argument.value, self._span((function, argument)), label=argument.label)
            else:
                function = self._apply_one(function, argument)
        return function

    def _apply_one(self, function: ast.Expr, argument: ast.Expr) -> ast.Expr:
        span = self._span((function, argument))
        if isinstance(function, ast.Var) and function.name in LOCATION_OF:  # `__LOC_OF__ e`: (where, e)
            return ast.Tuple((self._location(LOCATION_OF[function.name], span), argument), span)
        if isinstance(function, ast.Construct) and not function.args:
            return ast.Construct(function.name, (argument,), span)  # `C e`: a constructor's argument
        return ast.App(function, argument, span)

    def labelled(self, label: Token, value: ast.Expr) -> Labelled:
        """`~x:e` or `?x:e`."""
        return Labelled(label_of(label), value, self._span((label, value)))

    def punned_argument(self, label: Token) -> Labelled:
        """`~x` (`~x:x`) or `?x` (`?x:x`)."""
        span = self._tok_span(label)
        return Labelled(label_of(label), ast.Var(str(label)[1:], span), span)

    # ---------------------------------------------------------------- labelled parameters
    def punned_parameter(self, label: Token) -> Parameter:
        span = self._tok_span(label)
        return Parameter(label_of(label), ast.PVar(str(label)[1:], span), None, span)

    def labelled_parameter(self, label: Token, pattern: ast.Pattern) -> Parameter:
        return Parameter(label_of(label), pattern, None, self._span((label, pattern)))

    def annotated_parameter(self, sign: Token, opening: Token, name: Token, annotation: ast.TypeExpr,
                            closing: Token) -> Parameter:
        """`~(x : t)`, `?(x : t)`."""
        span = self._span((sign, closing))
        pattern = ast.PAnnot(ast.PVar(str(name), self._tok_span(name)), annotation, span)
        return Parameter(str(sign) + str(name), pattern, None, span)

    def default_parameter(self, sign: Token, *parts: Any) -> Parameter:
        """`?(x = e)`, `?(x : t = e)`, `?x:(p = e)`, `?x:(p : t = e)`."""
        closing = parts[-1]
        default = parts[-2]
        if str(sign) == "?":  # `?(x ...)`: parts are `(`, x, [t,] e, `)`
            name = parts[1]
            pattern: ast.Pattern = ast.PVar(str(name), self._tok_span(name))
            label = "?" + str(name)
        else:
            pattern, label = parts[1], label_of(sign)
        if len(parts) == 5:
            pattern = ast.PAnnot(pattern, parts[2], parts[2].span)
        return Parameter(label, pattern, default, self._span((sign, closing)))

    def var(self, name: ast.PVar) -> ast.Expr:
        if name.name in LOCATION_NAMES:  # `__LOC__`, `__LINE__`...: where they are written
            return self._location(LOCATION_NAMES[name.name], name.span)
        self.names_printer = self.names_printer or name.name.endswith(PRINTER_ENDINGS)
        return ast.Var(name.name, name.span)

    def _location(self, what: str, at: Span) -> ast.Expr:
        """A location as OCaml's `__LOC__` (`what` "loc"), `__FILE__`, `__LINE__`, `__POS__` or
        `__MODULE__` give it (as ocamlopt does: the file as given, the module its name)."""
        start, end = at.col - 1, (at.end_col - 1 if at.end_line == at.line else at.col)
        if what == "file":
            return ast.Const(self.file, "string", at)
        if what == "line":
            return ast.Const(at.line, "int", at)
        if what == "module":
            return ast.Const(unit_name(self.file) or "//toplevel//", "string", at)
        if what == "loc":
            return ast.Const(f'File "{self.file}", line {at.line}, characters {start}-{end}', "string", at)
        return ast.Tuple(tuple(ast.Const(value, kind, at) for value, kind in
                               ((self.file, "string"), (at.line, "int"), (start, "int"), (end, "int"))), at)

    def paren(self, opening: Token, expr: ast.Expr, closing: Token) -> ast.Expr:
        """`(e)` is `e`, located (as OCaml does) with its brackets."""
        return dataclasses.replace(expr, span=self._span((opening, closing)))

    def annot(self, opening: Token, expr: ast.Expr, type_expr: ast.TypeExpr, closing: Token) -> ast.Expr:
        """`(e : t)`, and `(e :> t)`: FL has no subtyping (no objects, no polymorphic variants)
        and keeps no type private, so a coercion that OCaml accepts is to e's own type."""
        return ast.Annot(expr, type_expr, self._span((opening, closing)))

    def coercion(self, opening: Token, expr: ast.Expr, source: ast.TypeExpr, target: ast.TypeExpr,
                 closing: Token) -> ast.Expr:
        """`(e : t1 :> t2)`: e of type t1, seen as t2 (the same type in FL, as for `(e :> t2)`)."""
        span = self._span((opening, closing))
        return ast.Annot(ast.Annot(expr, source, span), target, span)

    def prefix(self, op: Token, operand: ast.Expr) -> ast.Expr:
        return ast.App(ast.Var(str(op), self._tok_span(op)), operand, self._span((op, operand)))
