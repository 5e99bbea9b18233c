"""LLVM IR as text, written directly: the few types, constants and instructions that lowering
emits, with llvmlite.ir's names for them.

llvmlite.ir builds an object per instruction and prints the module by a `str.format` per
operand, the two taking about as long as LLVM then spends optimising the module. Here an
instruction is a line of text made when the instruction is (only a phi or a switch, which get
their inputs later, waits to be printed), and a value is its type and its reference: a
2,000-line program lowers in a fifth of the time.

Every name is quoted (`%"x.1"`, `@"fl.f"`), so any name of the SSA IR is a valid one; unnamed
values are `%".N"`, counted per function. A named value that would clash with a block's or
another value's name gets a suffix, as in llvmlite.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

# A byte as it appears in a `c"..."` string: printable ASCII but `"` and `\` as itself.
_BYTE_TEXT = [chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else f"\\{c:02X}" for c in range(256)]


def quoted(name: str) -> str:
    if '"' in name or "\\" in name:
        name = "".join(_BYTE_TEXT[c] for c in name.encode("latin-1"))
    return f'"{name}"'


class Type:
    """An LLVM type, by its text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __call__(self, value: object) -> Constant:
        return Constant(self, value)


def IntType(bits: int) -> Type:
    return Type(f"i{bits}")


def DoubleType() -> Type:
    return Type("double")


def FloatType() -> Type:
    return Type("float")


def PointerType() -> Type:
    return Type("ptr")


def VoidType() -> Type:
    return Type("void")


def ArrayType(element: Type, count: int) -> Type:
    return Type(f"[{count} x {element.text}]")


class FunctionType:
    def __init__(self, result: Type, params: list[Type]) -> None:
        self.result = result
        self.params = params


I64, I8, I1 = IntType(64), IntType(8), IntType(1)
F64 = DoubleType()
PTR = PointerType()
VOID = VoidType()


class Value:
    """Something an instruction can take: its type and how an instruction names it."""

    def __init__(self, type_: Type, reference: str) -> None:
        self.type = type_
        self.reference = reference

    def get_reference(self) -> str:
        return self.reference

    def __str__(self) -> str:
        return f"{self.type.text} {self.reference}"


class _UndefinedType:
    pass


Undefined = _UndefinedType()


class Constant(Value):
    """A constant; `constant` is its Python value (an int, a float, bytes, a list of
    constants, None for `null`, `Undefined` for `undef`)."""

    def __init__(self, type_: Type, value: object, reference: str | None = None) -> None:
        super().__init__(type_, reference if reference is not None else _constant_text(type_, value))
        self.constant = value

    @staticmethod
    def literal_struct(items: Sequence[Value]) -> Constant:
        type_ = Type("{" + ", ".join(i.type.text for i in items) + "}")
        return Constant(type_, items, "{" + ", ".join(str(i) for i in items) + "}")

    def inttoptr(self, type_: Type) -> Constant:
        return Constant(type_, self.constant, f"inttoptr ({self} to {type_.text})")


def _constant_text(type_: Type, value: object) -> str:
    if value is None:
        return "null"
    if value is Undefined:
        return "undef"
    if isinstance(value, (bytes, bytearray)):
        return 'c"' + "".join(_BYTE_TEXT[c] for c in value) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if type_.text == "double":
        return "0x" + struct.pack(">d", value).hex()
    if type_.text == "i1":
        return "true" if value else "false"
    return str(int(value))  # type: ignore[call-overload]


class GlobalVariable(Value):
    """A global; as every pointer in lowering, an opaque `ptr`. With no initializer it is the
    runtime's (external)."""

    def __init__(self, module: Module, value_type: Type, name: str) -> None:
        super().__init__(PTR, "@" + quoted(name))
        self.name = name
        self.value_type = value_type
        self.initializer: Constant | None = None
        self.global_constant = False
        self.linkage = ""
        self.unnamed_addr = False
        module.globals.append(self)

    def definition(self) -> str:
        if self.initializer is None:
            return f"{self.reference} = external global {self.value_type.text}"
        words = [self.reference, "=", self.linkage, "unnamed_addr" if self.unnamed_addr else "",
                 "constant" if self.global_constant else "global", str(self.initializer)]
        return " ".join(w for w in words if w)


class Function(Value):
    def __init__(self, module: Module, ftype: FunctionType, name: str) -> None:
        super().__init__(PTR, "@" + quoted(name))
        self.module = module
        self.name = name
        self.ftype = ftype
        self.calling_convention = ""
        self.linkage = ""
        self.attributes: list[str] = []
        self.prefix = ""  # prefix data: a typed constant laid out just before the code
        self.subprogram = ""  # with -g: the reference of its DISubprogram (`!7`)
        self.blocks: list[Block] = []
        self.names: set[str] = set()  # the blocks' and the values' names, kept apart
        self.unnamed = 0
        self.args = [Value(t, self.fresh()) for t in ftype.params]
        module.functions.append(self)

    def fresh(self, name: str = "") -> str:
        """A new value's reference: `name` if it is free, else `name` with a suffix; a number
        when no name is asked for."""
        if not name:
            self.unnamed += 1
            return f'%".{self.unnamed}"'
        unique, n = name, 0
        while unique in self.names:
            n += 1
            unique = f"{name}.{n}"
        self.names.add(unique)
        return "%" + quoted(unique)

    def append_basic_block(self, name: str) -> Block:
        block = Block(self, self.fresh(name))
        self.blocks.append(block)
        return block

    def text(self) -> str:
        words = ["define" if self.blocks else "declare", self.linkage, self.calling_convention,
                 self.ftype.result.text]
        head = " ".join(w for w in words if w)
        if self.blocks:
            params = ", ".join(str(a) for a in self.args)
        else:
            params = ", ".join(t.text for t in self.ftype.params)
        signature = f"{head} {self.reference}({params})" + "".join(" " + a for a in self.attributes)
        if not self.blocks:
            return signature
        if self.prefix:
            signature += f" prefix {self.prefix}"
        if self.subprogram:
            signature += f" !dbg {self.subprogram}"
        return signature + "\n{\n" + "\n".join(b.text() for b in self.blocks) + "\n}"


class Block:
    def __init__(self, function: Function, reference: str) -> None:
        self.function = function
        self.reference = reference
        self.lines: list[str | PhiInstr | SwitchInstr | CondBranch] = []  # text, or one still taking inputs

    def text(self) -> str:
        lines = [line.line() if isinstance(line, PhiInstr) else str(line) for line in self.lines]
        return f"{self.reference[1:]}:\n  " + "\n  ".join(lines)


class PhiInstr(Value):
    def __init__(self, type_: Type, reference: str) -> None:
        super().__init__(type_, reference)
        self.incoming: list[tuple[Value, Block]] = []

    def add_incoming(self, value: Value, block: Block) -> None:
        self.incoming.append((value, block))

    def line(self) -> str:
        inputs = ", ".join(f"[{v.reference}, {b.reference}]" for v, b in self.incoming)
        return f"{self.reference} = phi {self.type.text} {inputs}"


class SwitchInstr:
    def __init__(self, value: Value, default: Block) -> None:
        self.value, self.default = value, default
        self.cases: list[tuple[Constant, Block]] = []

    def add_case(self, value: Constant, block: Block) -> None:
        self.cases.append((value, block))

    def __str__(self) -> str:
        cases = " ".join(f"{v}, label {b.reference}" for v, b in self.cases)
        return f"switch {self.value}, label {self.default.reference} [{cases}]"


class CondBranch:
    def __init__(self, module: Module, text: str) -> None:
        self.module, self.text = module, text

    def set_weights(self, weights: list[int]) -> None:
        node = "!{!\"branch_weights\", " + ", ".join(f"i32 {w}" for w in weights) + "}"
        self.module.metadata.append(node)
        self.text += f", !prof !{len(self.module.metadata) - 1}"

    def __str__(self) -> str:
        return self.text


class Module:
    def __init__(self, name: str = "") -> None:
        self.name = name
        self.globals: list[GlobalVariable] = []
        self.functions: list[Function] = []
        self.metadata: list[str] = []
        self.named_metadata: dict[str, list[str]] = {}  # `!llvm.dbg.cu = !{!0}`

    def add_metadata(self, node: str) -> str:
        """A metadata node (`!{...}`, `!DILocation(...)`): its reference."""
        self.metadata.append(node)
        return f"!{len(self.metadata) - 1}"

    def __str__(self) -> str:
        parts = [f'; ModuleID = "{self.name}"']
        parts += [g.definition() for g in self.globals]
        parts += [f.text() for f in self.functions]
        parts += [f"!{name} = !{{{', '.join(nodes)}}}" for name, nodes in self.named_metadata.items()]
        parts += [f"!{i} = {node}" for i, node in enumerate(self.metadata)]
        return "\n\n".join(parts) + "\n"


_ICMP_SIGNED = {"==": "eq", "!=": "ne", "<": "slt", "<=": "sle", ">": "sgt", ">=": "sge"}
_ICMP_UNSIGNED = {"==": "eq", "!=": "ne", "<": "ult", "<=": "ule", ">": "ugt", ">=": "uge"}
_FCMP_ORDERED = {"==": "oeq", "!=": "one", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}
_FCMP_UNORDERED = {"==": "ueq", "!=": "une", "<": "ult", "<=": "ule", ">": "ugt", ">=": "uge"}


class IRBuilder:
    """Appends instructions to the end of a block, as llvmlite's builder of that name."""

    def __init__(self, block: Block | None = None) -> None:
        self._block = block
        self.debug_location = ""  # with -g: what follows each instruction (`, !dbg !12`)

    @property
    def block(self) -> Block:
        assert self._block is not None
        return self._block

    def position_at_end(self, block: Block) -> None:
        self._block = block

    def _value(self, type_: Type, text: str, name: str = "") -> Value:
        block = self.block
        reference = block.function.fresh(name)
        block.lines.append(f"{reference} = {text}{self.debug_location}")
        return Value(type_, reference)

    def _line(self, text: str) -> None:
        self.block.lines.append(text + self.debug_location)

    def _binary(self, op: str, a: Value, b: Value) -> Value:
        return self._value(a.type, f"{op} {a}, {b.reference}")

    def add(self, a: Value, b: Value) -> Value:
        return self._binary("add", a, b)

    def sub(self, a: Value, b: Value) -> Value:
        return self._binary("sub", a, b)

    def mul(self, a: Value, b: Value) -> Value:
        return self._binary("mul", a, b)

    def sdiv(self, a: Value, b: Value) -> Value:
        return self._binary("sdiv", a, b)

    def srem(self, a: Value, b: Value) -> Value:
        return self._binary("srem", a, b)

    def and_(self, a: Value, b: Value) -> Value:
        return self._binary("and", a, b)

    def or_(self, a: Value, b: Value) -> Value:
        return self._binary("or", a, b)

    def xor(self, a: Value, b: Value) -> Value:
        return self._binary("xor", a, b)

    def shl(self, a: Value, b: Value) -> Value:
        return self._binary("shl", a, b)

    def lshr(self, a: Value, b: Value) -> Value:
        return self._binary("lshr", a, b)

    def ashr(self, a: Value, b: Value) -> Value:
        return self._binary("ashr", a, b)

    def fadd(self, a: Value, b: Value) -> Value:
        return self._binary("fadd", a, b)

    def fsub(self, a: Value, b: Value) -> Value:
        return self._binary("fsub", a, b)

    def fmul(self, a: Value, b: Value) -> Value:
        return self._binary("fmul", a, b)

    def fdiv(self, a: Value, b: Value) -> Value:
        return self._binary("fdiv", a, b)

    def neg(self, a: Value) -> Value:
        return self._value(a.type, f"sub {a.type.text} 0, {a.reference}")

    def fneg(self, a: Value) -> Value:
        return self._value(a.type, f"fneg {a}")

    def icmp_signed(self, op: str, a: Value, b: Value) -> Value:
        return self._value(I1, f"icmp {_ICMP_SIGNED[op]} {a}, {b.reference}")

    def icmp_unsigned(self, op: str, a: Value, b: Value) -> Value:
        return self._value(I1, f"icmp {_ICMP_UNSIGNED[op]} {a}, {b.reference}")

    def fcmp_ordered(self, op: str, a: Value, b: Value) -> Value:
        return self._value(I1, f"fcmp {_FCMP_ORDERED[op]} {a}, {b.reference}")

    def fcmp_unordered(self, op: str, a: Value, b: Value) -> Value:
        return self._value(I1, f"fcmp {_FCMP_UNORDERED[op]} {a}, {b.reference}")

    def select(self, condition: Value, a: Value, b: Value) -> Value:
        return self._value(a.type, f"select {condition}, {a}, {b}")

    def _cast(self, op: str, a: Value, type_: Type) -> Value:
        return self._value(type_, f"{op} {a} to {type_.text}")

    def zext(self, a: Value, type_: Type) -> Value:
        return self._cast("zext", a, type_)

    def trunc(self, a: Value, type_: Type) -> Value:
        return self._cast("trunc", a, type_)

    def sext(self, a: Value, type_: Type) -> Value:
        return self._cast("sext", a, type_)

    def fptrunc(self, a: Value, type_: Type) -> Value:
        return self._cast("fptrunc", a, type_)

    def fpext(self, a: Value, type_: Type) -> Value:
        return self._cast("fpext", a, type_)

    def sitofp(self, a: Value, type_: Type) -> Value:
        return self._cast("sitofp", a, type_)

    def bitcast(self, a: Value, type_: Type) -> Value:
        return self._cast("bitcast", a, type_)

    def ptrtoint(self, a: Value, type_: Type) -> Value:
        return self._cast("ptrtoint", a, type_)

    def inttoptr(self, a: Value, type_: Type) -> Value:
        return self._cast("inttoptr", a, type_)

    def load(self, pointer: Value, typ: Type) -> Value:
        return self._value(typ, f"load {typ.text}, {pointer}")

    def store(self, value: Value, pointer: Value) -> None:
        self._line(f"store {value}, {pointer}")

    def gep(self, pointer: Value, indices: list[Value], source_etype: Type, inbounds: bool = False) -> Value:
        keyword = "getelementptr inbounds" if inbounds else "getelementptr"
        operands = "".join(f", {i}" for i in indices)
        return self._value(PTR, f"{keyword} {source_etype.text}, {pointer}{operands}")

    def call(self, callee: Value, args: list[Value], cconv: str = "", tail: str = "",
             ftype: FunctionType | None = None) -> Value:
        """A call of `callee`, a `Function`, or a code pointer of type `ftype`."""
        if ftype is None:
            assert isinstance(callee, Function)
            ftype = callee.ftype
        words = [tail, "call", cconv, ftype.result.text]
        text = " ".join(w for w in words if w) + f" {callee.reference}({', '.join(str(a) for a in args)})"
        if ftype.result.text == "void":
            self._line(text)
            return Value(VOID, "")
        return self._value(ftype.result, text)

    def phi(self, type_: Type, name: str = "") -> PhiInstr:
        block = self.block
        node = PhiInstr(type_, block.function.fresh(name))
        block.lines.append(node)
        return node

    def branch(self, target: Block) -> None:
        self._line(f"br label {target.reference}")

    def cbranch(self, condition: Value, if_true: Block, if_false: Block) -> CondBranch:
        branch = CondBranch(self.block.function.module,
                            f"br {condition}, label {if_true.reference}, label {if_false.reference}"
                            + self.debug_location)
        self.block.lines.append(branch)
        return branch

    def switch(self, value: Value, default: Block) -> SwitchInstr:
        instruction = SwitchInstr(value, default)
        self.block.lines.append(instruction)
        return instruction

    def ret(self, value: Value) -> None:
        self._line(f"ret {value}")

    def ret_void(self) -> None:
        self._line("ret void")

