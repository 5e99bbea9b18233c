"""A hypothesis strategy for random, well-typed, terminating FL programs.

Programs are built from typed expression generators, so every program type-checks by
construction; recursion and loops are bounded by literals, so every program terminates. The
generator covers ints, floats, bools, tuples, `let`, `if`, local and top-level functions,
closures, partial application, higher-order calls (functions given closures that they apply
and pass on), bounded `let rec`, and data: a variant with
constant and non-constant constructors matched with nested patterns, or-patterns and guards;
a record with a mutable field; options; lists and the List functions; arrays; refs; `for` and
`while` loops; cyclic lists built by `let rec` of values; structural comparison of all of these; and exceptions (a user exception with
and without an argument, Division_by_zero, a bad index) raised in `try`s whose handlers match
some of them and re-raise the rest to an enclosing one.
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
        nodes = ["if", "let", "call", "lambda", "higher_order", "tuple"] + {
            INT: ["arith", "arith", "div", "conv", "minmax", "match_shape", "list", "array", "loop", "option",
                  "try", "indexed", "recursive_value"],
            FLOAT: ["farith", "fconv", "record"],
            BOOL: ["compare", "logic", "data_compare"]}[ty]
        if not self.callable(scope, ty):
            nodes.remove("call")
        kind = self.choose(leaves if depth <= 0 else leaves + nodes)
        return getattr(self, "gen_" + kind)(ty, scope, depth - 1)

    def gen_literal(self, ty: str, scope: Scope, depth: int) -> str:
        if ty == INT:
            number = self.draw(st.integers(-1000, 1000) | st.sampled_from([0, 1, -1, 2**62, -(2**62)]))
            return f"({number})" if number < 0 else str(number)
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

    def gen_higher_order(self, ty: str, scope: Scope, depth: int) -> str:
        """A function taking a function, which it applies and passes on to itself (a bounded
        recursion), given closures over the values in scope, once or twice with different
        ones (what `specialise` makes copies for). The function takes one argument or two; one
        of two is given a closure taking both at once, one taking one and returning a closure,
        or a partial application (each way an apply of two arguments may go)."""
        h, g, k, a, b = (scope.fresh(hint) for hint in ("h", "g", "k", "a", "b"))
        param = self.choose([INT, FLOAT, BOOL])
        arg = self.expr(param, scope.extended([(k, INT)]), depth)
        two = self.draw(st.booleans())
        function_type, call = (f"{param} -> int -> {ty}", f"{g} {arg} {k}") if two else (f"{param} -> {ty}", f"{g} {arg}")
        header = (f"let rec {h} ({g} : {function_type}) ({k} : int) : {ty} = "
                  f"if {k} <= 0 then {call} else {h} {g} ({k} - 1) in ")

        def applied() -> str:
            return f"{h} {self.closure_of_two(param, ty, scope, depth) if two else self.closure_of_one(param, ty, scope, depth)} {self.draw(st.integers(0, 3))}"
        if self.draw(st.booleans()):
            return f"({header}{applied()})"
        return f"({header}let {a} = {applied()} in let {b} = {applied()} in if {a} = {b} then {a} else {b})"

    def closure_of_one(self, param: str, ty: str, scope: Scope, depth: int) -> str:
        x = scope.fresh("x")
        return f"(fun ({x} : {param}) -> {self.expr(ty, scope.extended([(x, param)]), depth)})"

    def closure_of_two(self, param: str, ty: str, scope: Scope, depth: int) -> str:
        x, y, w, f = (scope.fresh(hint) for hint in ("x", "y", "w", "f"))
        inner = scope.extended([(x, param), (y, INT), (w, INT)])
        shape = self.choose(["both", "nested", "partial"])
        if shape == "both":
            return f"(fun ({x} : {param}) ({y} : int) -> {self.expr(ty, scope.extended([(x, param), (y, INT)]), depth)})"
        if shape == "nested":
            return (f"(fun ({x} : {param}) -> let {w} = {self.expr(INT, scope.extended([(x, param)]), depth)} in "
                    f"fun ({y} : int) -> {self.expr(ty, inner, depth)})")
        return (f"(let {f} ({w} : int) ({x} : {param}) ({y} : int) : {ty} = {self.expr(ty, inner, depth)} in "
                f"{f} {self.expr(INT, scope, depth)})")

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

    def gen_try(self, ty: str, scope: Scope, depth: int) -> str:
        """A try whose body may raise (a user exception, Division_by_zero, a bad index), with
        handlers that match some of them; what none matches goes on to an enclosing one."""
        raising = self.choose([
            f"(if {self.expr(BOOL, scope, depth)} then raise (Eb {self.expr(INT, scope, depth)}) "
            f"else {self.expr(INT, scope, depth)})",
            f"(if {self.expr(BOOL, scope, depth)} then raise Ea else {self.expr(INT, scope, depth)})",
            f"({self.expr(INT, scope, depth)} / ({self.expr(INT, scope, depth)} land 1))",
            f"[| {self.expr(INT, scope, depth)} |].({self.expr(INT, scope, depth)} land 1)",
            self.expr(INT, scope, depth)])
        n = scope.fresh("n")
        cases = self.draw(st.lists(st.sampled_from([
            f"| Eb {n} when {n} > 0 -> {n} + {self.expr(INT, scope, depth)}",
            f"| Eb {n} -> {n}",
            f"| Ea -> {self.expr(INT, scope, depth)}",
            "| Division_by_zero -> -1",
            "| Invalid_argument _ -> -2"]), min_size=1, max_size=3, unique=True))
        inner = f"(try {raising} with {' '.join(cases)})"
        return f"(try {inner} with Ea -> 7 | Eb _ -> 8 | Division_by_zero -> 9 | Invalid_argument _ -> 10)"

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

    # ---------------------------------------------------------------- data
    def shape(self, scope: Scope, depth: int) -> str:
        """A value of `shape` (declared by `DECLARATIONS`)."""
        return self.choose(["Sa", "Se", f"(Sb {self.expr(INT, scope, depth)})",
                            f"(Sc ({self.expr(INT, scope, depth)}, {self.expr(BOOL, scope, depth)}))",
                            f"(Sd {self.expr(FLOAT, scope, depth)})",
                            f"(Sf (Sb {self.expr(INT, scope, depth)}))"])

    def gen_match_shape(self, ty: str, scope: Scope, depth: int) -> str:
        n, b, f, inner = scope.fresh("n"), scope.fresh("b"), scope.fresh("f"), scope.fresh("s")
        limit = self.draw(st.integers(-5, 5))
        with_n = scope.extended([(n, INT)])
        cases = [f"| Sa | Se -> {self.expr(INT, scope, depth)}",
                 f"| Sb {n} when {n} > {limit} -> {self.expr(INT, with_n, depth)}",
                 f"| Sb {n} -> {self.expr(INT, with_n, depth)}",
                 f"| Sc ({n}, {b}) -> if {b} then {n} else {self.expr(INT, scope, depth)}",
                 f"| Sd {f} -> int_of_float (floor (abs_float {f}))",
                 f"| Sf (Sb {n} | Sc ({n}, _)) -> {n}",
                 f"| Sf {inner} -> (match {inner} with Sa -> 1 | _ -> 2)"]
        return f"(match {self.shape(scope, depth)} with {' '.join(cases)})"

    def int_list(self, scope: Scope, depth: int) -> str:
        items = [self.expr(INT, scope, depth) for _ in range(self.draw(st.integers(0, 4)))]
        literal = "[" + "; ".join(items) + "]"
        return self.choose([literal, f"({self.expr(INT, scope, depth)} :: {literal})",
                            f"(List.map (fun x -> x * 2) {literal})", f"(List.rev {literal})",
                            f"(List.filter (fun x -> x > 0) {literal})", f"({literal} @ [1])",
                            f"(List.sort compare {literal})"])

    def gen_list(self, ty: str, scope: Scope, depth: int) -> str:
        items = self.int_list(scope, depth)
        x, rest = scope.fresh("x"), scope.fresh("rest")
        return self.choose([f"(List.fold_left ( + ) 0 {items})", f"(List.length {items})",
                            f"(match {items} with [] -> {self.expr(INT, scope, depth)} | [{x}] -> {x} "
                            f"| {x} :: {rest} -> {x} - List.length {rest})"])

    def gen_array(self, ty: str, scope: Scope, depth: int) -> str:
        a = scope.fresh("arr")
        size = self.draw(st.integers(1, 4))
        i, j = self.draw(st.integers(0, size - 1)), self.draw(st.integers(0, size - 1))
        return (f"(let {a} = Array.make {size} {self.expr(INT, scope, depth)} in "
                f"{a}.({i}) <- {self.expr(INT, scope, depth)}; {a}.({j}) + Array.length {a})")

    def gen_loop(self, ty: str, scope: Scope, depth: int) -> str:
        r, i = scope.fresh("r"), scope.fresh("i")
        start, stop = self.draw(st.integers(-2, 3)), self.draw(st.integers(-2, 5))
        body = self.expr(INT, scope.extended([(i, INT)]), depth)
        if self.draw(st.booleans()):
            direction = self.choose(["to", "downto"])
            return f"(let {r} = ref 0 in for {i} = {start} {direction} {stop} do {r} := !{r} + {body} done; !{r})"
        return (f"(let {r} = ref 0 in let {i} = ref ({start}) in "
                f"while !{i} < {stop} do {r} := !{r} lxor {self.expr(INT, scope, depth)}; incr {i} done; !{r})")

    def gen_indexed(self, ty: str, scope: Scope, depth: int) -> str:
        """A loop over an array whose index may or may not be in bounds, tested or not first:
        bounds checks that path facts may remove and ones they must keep."""
        a, s, i = scope.fresh("arr"), scope.fresh("s"), scope.fresh("i")
        size, start = self.draw(st.integers(0, 4)), self.draw(st.integers(-1, 2))
        stop = self.choose([f"Array.length {a} - 1", f"Array.length {a}", str(self.draw(st.integers(-1, 4)))])
        index = f"{i}{self.choose(['', ' + 1', ' - 1'])}"
        otherwise = self.expr(INT, scope, depth)
        access = self.choose([
            f"{a}.({index})",
            f"(if {index} < Array.length {a} then {a}.({index}) else {otherwise})",
            f"(if {index} >= 0 && {index} < Array.length {a} then {a}.({index}) else {otherwise})",
            f"(if {index} <= {stop} then {a}.({index}) else {otherwise})"])
        loop = self.choose([f"for {i} = {start} to {stop} do", f"for {i} = {stop} downto {start} do"])
        return (f"(let {a} = Array.init {size} (fun k -> k * 3) in let {s} = ref 0 in "
                f"(try {loop} {s} := !{s} + {access} done with Invalid_argument _ -> {s} := !{s} + 100); !{s})")

    def gen_recursive_value(self, ty: str, scope: Scope, depth: int) -> str:
        """A cycle built by `let rec`: a plain value of the group first (it may raise), then the
        blocks, whose heads may raise too; then a walk round the cycle, and its identity."""
        p, c1, c2, walk = scope.fresh("p"), scope.fresh("c"), scope.fresh("c"), scope.fresh("walk")
        steps = self.draw(st.integers(0, 5))
        return (f"(let rec {p} = {self.expr(INT, scope, depth)} and {c1} = {self.expr(INT, scope, depth)} :: {p} :: {c2} "
                f"and {c2} = {self.expr(INT, scope, depth)} :: {c1} in "
                f"let rec {walk} l k acc = if k = 0 then acc else "
                f"(match l with x :: r -> {walk} r (k - 1) (acc * 3 + x) | [] -> acc) in "
                f"{walk} {c1} {steps} 0 + (if List.tl {c2} == {c1} then 1 else 0))")

    def gen_option(self, ty: str, scope: Scope, depth: int) -> str:
        x = scope.fresh("x")
        option = f"(if {self.expr(BOOL, scope, depth)} then Some {self.expr(INT, scope, depth)} else None)"
        return f"(match {option} with Some {x} -> {x} | None -> {self.expr(INT, scope, depth)})"

    def gen_record(self, ty: str, scope: Scope, depth: int) -> str:
        r = scope.fresh("rc")
        value = (f"{{ fa = {self.expr(INT, scope, depth)}; fb = {self.expr(FLOAT, scope, depth)}; "
                 f"fc = {self.expr(BOOL, scope, depth)} }}")
        if self.draw(st.booleans()):  # the base first, then the fields as written; any may raise
            value = (f"{{ (if {self.expr(BOOL, scope, depth)} then raise Ea else {value}) with "
                     f"fc = {self.expr(BOOL, scope, depth)}; "
                     f"fa = (if {self.expr(BOOL, scope, depth)} then raise (Eb 3) else {self.expr(INT, scope, depth)}) }}")
        return (f"(let {r} = {value} in {r}.fb <- {r}.fb +. {self.expr(FLOAT, scope, depth)}; "
                f"if {r}.fc then {r}.fb else float_of_int {r}.fa)")

    def gen_data_compare(self, ty: str, scope: Scope, depth: int) -> str:
        op = self.choose(["=", "<>", "<", ">", "<=", ">="])
        kind = self.choose(["shape", "list", "pair", "option"])
        if kind == "shape":
            a, b = self.shape(scope, depth), self.shape(scope, depth)
        elif kind == "list":
            a, b = self.int_list(scope, depth), self.int_list(scope, depth)
        elif kind == "pair":
            a = f"({self.expr(FLOAT, scope, depth)}, {self.expr(INT, scope, depth)})"
            b = f"({self.expr(FLOAT, scope, depth)}, {self.expr(INT, scope, depth)})"
        else:
            a, b = f"(Some {self.shape(scope, depth)})", self.choose(["None", f"(Some {self.shape(scope, depth)})"])
        return self.choose([f"({a} {op} {b})", f"(compare {a} {b} {op} 0)"])

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


DECLARATIONS = """exception Ea
exception Eb of int
type shape = Sa | Sb of int | Sc of int * bool | Sd of float | Se | Sf of shape
type rcd = { fa : int; mutable fb : float; fc : bool }"""


@st.composite
def programs(draw: st.DrawFn) -> str:
    gen = Generator(draw)
    scope = Scope()
    lines = [DECLARATIONS]
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
