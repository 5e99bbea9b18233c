"""A hypothesis strategy for random, well-typed, terminating FL programs.

Programs are built from typed expression generators, so every program type-checks by
construction; recursion is bounded by a literal counter, so every program terminates. The
generator covers what FL compiles today: ints, floats, bools, tuples, `let`, `if`, local and
top-level functions, closures, partial application, higher-order calls and bounded `let rec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

INT, FLOAT, BOOL = "int", "float", "bool"


@dataclass(frozen=True)
class FunType:
    params: tuple[str, ...]
    result: str


@dataclass
class Scope:
    values: list[tuple[str, str]] = field(default_factory=list)  # (name, base type)
    functions: list[tuple[str, FunType]] = field(default_factory=list)
    counter: list[int] = field(default_factory=lambda: [0])

    def fresh(self, hint: str) -> str:
        self.counter[0] += 1
        return f"{hint}{self.counter[0]}"

    def extended(self, values: list[tuple[str, str]] = (), functions: list[tuple[str, FunType]] = ()) -> Scope:  # type: ignore[assignment]
        return Scope(self.values + list(values), self.functions + list(functions), self.counter)


class Generator:
    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def choose(self, options: list[str]) -> str:
        return self.draw(st.sampled_from(options))

    def expr(self, ty: str, scope: Scope, depth: int) -> str:
        leaves = ["literal"] + (["var"] if any(t == ty for _, t in scope.values) else [])
        nodes = ["if", "let", "call", "lambda", "tuple"] + {INT: ["arith", "arith", "div", "conv", "minmax"],
                                                          FLOAT: ["farith", "fconv"],
                                                          BOOL: ["compare", "logic"]}[ty]
        if not self.callable(scope, ty):
            nodes.remove("call")
        kind = self.choose(leaves if depth <= 0 else leaves + nodes)
        return getattr(self, "gen_" + kind)(ty, scope, depth - 1)

    def gen_literal(self, ty: str, scope: Scope, depth: int) -> str:
        if ty == INT:
            value = self.draw(st.integers(-1000, 1000) | st.sampled_from([0, 1, -1, 2**62, -(2**62)]))
            return f"({value})" if value < 0 else str(value)
        if ty == FLOAT:
            value = self.draw(st.sampled_from(["0.5", "1.", "2.25", "3.", "100.", "0.1", "1e10", "7.75"]))
            return self.choose([value, f"(-. {value})"])
        return self.choose(["true", "false"])

    def gen_var(self, ty: str, scope: Scope, depth: int) -> str:
        return self.choose([name for name, t in scope.values if t == ty])

    def gen_if(self, ty: str, scope: Scope, depth: int) -> str:
        return (f"(if {self.expr(BOOL, scope, depth)} then {self.expr(ty, scope, depth)} "
                f"else {self.expr(ty, scope, depth)})")

    def gen_let(self, ty: str, scope: Scope, depth: int) -> str:
        bound = self.choose([INT, FLOAT, BOOL])
        name = scope.fresh("v")
        value = self.expr(bound, scope, depth)
        return f"(let {name} = {value} in {self.expr(ty, scope.extended([(name, bound)]), depth)})"

    def gen_tuple(self, ty: str, scope: Scope, depth: int) -> str:
        other = self.choose([INT, FLOAT, BOOL])
        a, b = scope.fresh("a"), scope.fresh("b")
        pair = f"({self.expr(ty, scope, depth)}, {self.expr(other, scope, depth)})"
        body = self.expr(ty, scope.extended([(a, ty), (b, other)]), depth)
        return self.choose([f"(let ({a}, {b}) = {pair} in {body})", f"(fst {pair})"])

    def gen_lambda(self, ty: str, scope: Scope, depth: int) -> str:
        """A closure applied later: `(let f = fun x -> e in f a)`, possibly via a higher-order call."""
        param = self.choose([INT, FLOAT, BOOL])
        f, x = scope.fresh("f"), scope.fresh("x")
        body = self.expr(ty, scope.extended([(x, param)]), depth)
        arg = self.expr(param, scope, depth)
        call = self.choose([f"{f} {arg}", f"(fun g -> g {arg}) {f}", f"{arg} |> {f}", f"{f} @@ {arg}"])
        return f"(let {f} = fun ({x} : {param}) -> {body} in {call})"

    @staticmethod
    def callable(scope: Scope, ty: str) -> list[tuple[str, FunType]]:
        """Functions returning `ty` that any arguments may be passed to (not the bounded recursions,
        whose counter must stay small: see `bounded_call`)."""
        return [(n, f) for n, f in scope.functions if f.result == ty and not n.startswith("rec")]

    def gen_call(self, ty: str, scope: Scope, depth: int) -> str:
        name, ftype = self.draw(st.sampled_from(self.callable(scope, ty)))
        args = [self.expr(p, scope, depth) for p in ftype.params]
        if len(args) > 1 and self.draw(st.booleans()):
            partial = scope.fresh("p")
            return f"(let {partial} = {name} {args[0]} in {partial} {' '.join(args[1:])})"
        return f"({name} {' '.join(args)})"

    def gen_arith(self, ty: str, scope: Scope, depth: int) -> str:
        op = self.choose(["+", "-", "*", "land", "lor", "lxor"])
        if self.draw(st.booleans()):
            shift = self.choose(["lsl", "lsr", "asr"])
            return f"({self.expr(INT, scope, depth)} {shift} {self.draw(st.integers(0, 63))})"
        return f"({self.expr(INT, scope, depth)} {op} {self.expr(INT, scope, depth)})"

    def gen_div(self, ty: str, scope: Scope, depth: int) -> str:
        divisor = self.draw(st.sampled_from([-7, -1, 1, 2, 3, 10]))
        op = self.choose(["/", "mod"])
        return f"({self.expr(INT, scope, depth)} {op} ({divisor}))"

    def gen_conv(self, ty: str, scope: Scope, depth: int) -> str:
        return self.choose([f"(abs {self.expr(INT, scope, depth)})",
                            f"(int_of_float (floor {self.expr(FLOAT, scope, depth)}))",
                            f"(- {self.expr(INT, scope, depth)})",
                            f"(compare {self.expr(INT, scope, depth)} {self.expr(INT, scope, depth)})"])

    def gen_minmax(self, ty: str, scope: Scope, depth: int) -> str:
        return f"({self.choose(['min', 'max'])} {self.expr(INT, scope, depth)} {self.expr(INT, scope, depth)})"

    def gen_farith(self, ty: str, scope: Scope, depth: int) -> str:
        op = self.choose(["+.", "-.", "*.", "/."])
        return f"({self.expr(FLOAT, scope, depth)} {op} {self.expr(FLOAT, scope, depth)})"

    def gen_fconv(self, ty: str, scope: Scope, depth: int) -> str:
        return self.choose([f"(float_of_int {self.expr(INT, scope, depth)})",
                            f"(sqrt (abs_float {self.expr(FLOAT, scope, depth)}))",
                            f"(max {self.expr(FLOAT, scope, depth)} {self.expr(FLOAT, scope, depth)})"])

    def gen_compare(self, ty: str, scope: Scope, depth: int) -> str:
        operand = self.choose([INT, FLOAT, BOOL])
        op = self.choose(["=", "<>", "<", ">", "<=", ">="])
        return f"({self.expr(operand, scope, depth)} {op} {self.expr(operand, scope, depth)})"

    def gen_logic(self, ty: str, scope: Scope, depth: int) -> str:
        return self.choose([f"({self.expr(BOOL, scope, depth)} && {self.expr(BOOL, scope, depth)})",
                            f"({self.expr(BOOL, scope, depth)} || {self.expr(BOOL, scope, depth)})",
                            f"(not {self.expr(BOOL, scope, depth)})"])

    # ---------------------------------------------------------------- top level
    def function(self, scope: Scope) -> tuple[str, Scope]:
        name = scope.fresh("fn")
        params = tuple(self.choose([INT, FLOAT, BOOL]) for _ in range(self.draw(st.integers(1, 3))))
        result = self.choose([INT, FLOAT, BOOL])
        names = [scope.fresh("x") for _ in params]
        body = self.expr(result, scope.extended(list(zip(names, params))), 3)
        header = " ".join(f"({n} : {t})" for n, t in zip(names, params))
        return f"let {name} {header} = {body}", scope.extended(functions=[(name, FunType(params, result))])

    def recursive(self, scope: Scope) -> tuple[str, Scope]:
        """`let rec f n acc = if n <= 0 then acc else f (n - 1) step`: terminates."""
        name, n, acc = scope.fresh("rec"), scope.fresh("n"), scope.fresh("acc")
        step = self.expr(INT, scope.extended([(n, INT), (acc, INT)]), 2)
        definition = f"let rec {name} {n} {acc} = if {n} <= 0 then {acc} else {name} ({n} - 1) {step}"
        return definition, scope.extended(functions=[(name, FunType((INT, INT), INT))])

    def bounded_call(self, scope: Scope) -> str:
        recs = [n for n, _ in scope.functions if n.startswith("rec")]
        name = self.choose(recs)
        return f"({name} {self.draw(st.integers(0, 30))} {self.expr(INT, scope, 2)})"

    def printer(self, scope: Scope) -> str:
        ty = self.choose([INT, FLOAT, BOOL])
        e = self.expr(ty, scope, 4)
        if ty == INT and any(n.startswith("rec") for n, _ in scope.functions) and self.draw(st.booleans()):
            e = self.bounded_call(scope)
        show = {INT: f"print_int {e}", FLOAT: f"print_float {e}",
                BOOL: f"print_string (if {e} then \"T\" else \"F\")"}[ty]
        return f"let () = {show}; print_newline ()"


@st.composite
def programs(draw: st.DrawFn) -> str:
    gen = Generator(draw)
    scope = Scope()
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["value", "function", "recursive", "print", "print"]))
        if kind == "value":
            ty = gen.choose([INT, FLOAT, BOOL])
            name = scope.fresh("g")
            lines.append(f"let {name} = {gen.expr(ty, scope, 3)}")
            scope = scope.extended([(name, ty)])
        elif kind == "function":
            line, scope = gen.function(scope)
            lines.append(line)
        elif kind == "recursive":
            line, scope = gen.recursive(scope)
            lines.append(line)
        else:
            lines.append(gen.printer(scope))
    lines.append(gen.printer(scope))
    return "\n".join(lines) + "\n"
