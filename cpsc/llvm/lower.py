"""SSA to LLVM IR (as text, `cpsc.llvm.text`).

Values keep their native types: int `i64`, float `double`, bool `i1`, char and unit `i8`;
strings, tuples and closures are `ptr`s to GC-allocated records of 8-byte slots (a closure's slot
0 holds its code). Every FL function uses `tailcc`; a call in tail position is `musttail`, so
no tail call (known, through a closure, mutually recursive) grows the stack.

A closure's code carries, as LLVM prefix data just before its first instruction, its arity n and
its entry taking all n arguments at once (`<{i64 full - code, i64 n}>`: `0, 1` for a closure of
one argument), as GHC lays out tables next to code and OCaml's closures carry theirs: an apply of k
arguments reads the arity from the code pointer and, when it is k, calls the full entry at once;
otherwise it applies the closure to one argument at a time. A saturated unknown call so
allocates no partial application, and the records stay as small as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from cpsc.cps import ir as cps
from cpsc.cps.graphs import Groups
from cpsc.cps.primops import evaluate
from cpsc.cps.sites import DebugSites
from cpsc.llvm import text as ll
from cpsc.llvm.abi import (
    C_CALLS,
    EXTRA_ARGS,
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    ICMP,
    INTEGER_REGISTERS,
    PTR,
    RUNTIME,
    VOID,
    arity_matches,
    function_type,
    in_registers,
    is_byte_array,
    lltype,
)
from cpsc.llvm.debug import DebugInfo
from cpsc.llvm.partition import functions_named
from cpsc.llvm.switch_table import SwitchTable, switch_tables
from cpsc.semantics.builtins import ExceptionId
from cpsc.ssa import ir
from cpsc.types.types import TCon


def calling_conventions(module: ir.Module) -> dict[str, str]:
    """Each function's calling convention: `preserve_nonecc` (the callee saves no register, so
    a non-tail call costs no pushes and pops of callee-saved registers, as OCaml's calls
    spill only what is live) where LLVM can still guarantee every tail call, else `tailcc`.

    A `musttail` call needs the caller and callee in one convention, and with `preserve_nonecc`
    the same prototype (`tailcc` alone allows any). So functions joined by tail calls go
    together: `preserve_nonecc` when they all have one prototype, none tail-applies a closure
    and none is a closure's code or full entry (called through pointers as `tailcc`)."""
    joined = Groups([f.name for f in module.functions])
    pointers = {f.full for f in module.functions if f.full is not None}
    for f in module.functions:
        for block in f.blocks:
            pointers.update(x.value.function for x in block.instructions if isinstance(x.value, cps.MakeClosure))
            if isinstance(block.terminator, cps.TailCall):
                joined.join(f.name, block.terminator.function)
            elif isinstance(block.terminator, cps.TailApply):
                pointers.add(f.name)  # (its tail apply calls a `tailcc` code pointer)
    prototypes: dict[str, set[str]] = {}
    for f in module.functions:
        ftype = function_type([p.type for p in f.params], f.result)
        key = "tailcc" if f.name in pointers else ftype.result.text + "".join(", " + t.text for t in ftype.params)
        prototypes.setdefault(joined.leader(f.name), set()).add(key)
    free = {leader for leader, keys in prototypes.items() if len(keys) == 1 and "tailcc" not in keys}
    return {f.name: "preserve_nonecc" if joined.leader(f.name) in free else "tailcc" for f in module.functions}

CALLSTACK_SLOTS = 65536  # runtime.c's: the places of the calls running that -g keeps
SMALL_BLOCK_BYTES = 256  # the largest block the runtime keeps free lists for (SMALL_GRANULES * 16)


class ModuleLowering:
    """Lowers the SSA module, or with `part` the functions named in it: the others it names
    are declared, and those that other parts name are visible to them (see `partition`)."""

    def __init__(self, module: ir.Module, part: set[str] | None = None,
                 may_raise: set[str] | None = None, sites: DebugSites | None = None) -> None:
        self.ssa = module
        self.part = part
        self.sites = sites  # with -g: where calls are in the source, for backtraces
        self.module = ll.Module(name="fl")
        self.debug = DebugInfo(self.module, sites) if sites is not None else None  # and DWARF
        # With -g, in a program that asks for its call stack (Printexc.get_callstack): the
        # runtime's places of the calls running (`framed_call`)
        self.keeps_callstack = sites is not None and any(
            isinstance(x.value, cps.Prim) and x.value.op == "callstack"
            for f in module.functions for block in f.blocks for x in block.instructions)
        if self.keeps_callstack:
            self.callstack_sites = ll.GlobalVariable(self.module, ll.ArrayType(PTR, CALLSTACK_SLOTS),
                                                     "fl_callstack_sites")
            self.callstack_depth = ll.GlobalVariable(self.module, I64, "fl_callstack_depth")
        self.runtime = {name: self._declare(name, r, a) for name, (r, a) in RUNTIME.items()}
        self.runtime["fl_exit"].attributes.append("noreturn")
        # -g's notes touch only the runtime's backtrace (and read their arguments): a loop whose
        # cold path raises keeps its loads hoisted and its values in registers
        for note in ("fl_raise_at", "fl_called_from", "fl_inlined_frame"):
            self.runtime[note].attributes.extend(["memory(argmem: read, inaccessiblemem: readwrite)", "nounwind",
                                                  "willreturn"])
        self.functions: dict[str, ll.Function] = {}
        self.strings: dict[str, ll.GlobalVariable] = {}
        # ids of the LLVM values known at compile time beside literals: the globals made by
        # `static_tuple` and constant immediates (kept alive in `constants`, so ids stay unique)
        self.static_tuples: set[int] = set()
        self.constants: list[ll.Value] = []
        self.global_slots = {name: i for i, (name, _) in enumerate(module.globals)}
        self.globals_record = ll.GlobalVariable(self.module, PTR, "fl_globals")  # defined by the runtime
        self.pending_exception = ll.GlobalVariable(self.module, PTR, "fl_exception")  # the runtime's too
        self.extra_args = ll.GlobalVariable(self.module, ll.ArrayType(I64, EXTRA_ARGS), "fl_extra_args")  # and this
        self.exception_ids: dict[str, ll.GlobalVariable] = {}
        self.small_allocators: dict[bool, ll.Function] = {}
        self.may_raise = functions_that_may_raise(module) if may_raise is None else may_raise
        self.defined = [f for f in module.functions if part is None or f.name in part]
        shared = set() if part is None else {g for f in module.functions if f.name not in part
                                             for g in functions_named(f)}
        needed = {f.name for f in self.defined}
        needed.update(g for f in self.defined if part is not None for g in functions_named(f))
        self.conventions = calling_conventions(module)
        closure_codes = {x.value.function for f in module.functions for block in f.blocks
                         for x in block.instructions if isinstance(x.value, cps.MakeClosure)}
        for f in module.functions:
            if f.name not in needed:
                continue
            fn = ll.Function(self.module, function_type([p.type for p in f.params], f.result), _symbol(f.name))
            fn.calling_convention = self.conventions[f.name]
            # Named across parts: external linkage, hidden (the visibility is printed after
            # the linkage, so it goes there).
            private = part is None or f.name in part and f.name not in shared
            fn.linkage = "internal" if private else "hidden"
            if f.noinline:
                fn.attributes.append("noinline")
            self.functions[f.name] = fn
        arities = {f.name: len(f.params) - 1 for f in module.functions}
        for f in self.defined:
            if f.name in closure_codes or f.full is not None:
                # the full entry as an offset from the code: no relocation in the text of a PIE
                code = self.functions[f.name].reference
                offset = "0" if f.full is None else (
                    f"sub (i64 ptrtoint (ptr {self.functions[f.full].reference} to i64), i64 ptrtoint (ptr {code} to i64))")
                arity = arities[f.full] if f.full is not None else 1
                self.functions[f.name].prefix = f"<{{ i64, i64 }}> <{{ i64 {offset}, i64 {arity} }}>"

    def _declare(self, name: str, result: ll.Type, args: list[ll.Type]) -> ll.Function:
        return ll.Function(self.module, ll.FunctionType(result, args), name)

    def allocate_small(self, atomic: bool) -> ll.Function:
        """`fl.alloc_small(bytes)`: pop a block off the runtime's free list for its size (see
        `fl_alloc` and `fl_alloc_atomic` in runtime.c), calling the runtime only when the list
        is empty. Always inlined, so that the usual allocation is a load, a test and a store, as
        in OCaml's minor heap. The block's first word still links to the next one: the caller
        overwrites it."""
        if atomic not in self.small_allocators:
            prefix = "fl_atomic" if atomic else "fl"
            lists = ll.GlobalVariable(self.module, ll.ArrayType(PTR, SMALL_BLOCK_BYTES // 16 + 1),
                                      f"{prefix}_free_lists")
            fn = ll.Function(self.module, ll.FunctionType(PTR, [I64]), f"{prefix}.alloc_small")
            fn.linkage = "internal"
            fn.attributes.append("alwaysinline")
            bytes_ = fn.args[0]
            b = ll.IRBuilder(fn.append_basic_block("entry"))
            slot = b.gep(lists, [b.lshr(b.add(bytes_, I64(15)), I64(4))], source_etype=PTR)
            block = b.load(slot, typ=PTR)
            taken, refill = fn.append_basic_block("taken"), fn.append_basic_block("refill")
            b.cbranch(b.icmp_unsigned("==", block, ll.Constant(PTR, None)), refill, taken).set_weights([1, 1000])
            b.position_at_end(taken)
            b.store(b.load(block, typ=PTR), slot)
            b.ret(block)
            b.position_at_end(refill)
            b.ret(b.call(self.runtime["fl_alloc_atomic" if atomic else "fl_alloc"], [bytes_]))
            self.small_allocators[atomic] = fn
        return self.small_allocators[atomic]

    def string(self, text: str) -> ll.GlobalVariable:
        if text not in self.strings:
            data = text.encode("latin-1") + b"\0"
            body = ll.Constant(ll.ArrayType(I8, len(data)), bytearray(data))
            init = ll.Constant.literal_struct([I64(len(data) - 1), body])
            g = ll.GlobalVariable(self.module, init.type, f"str.{len(self.strings)}")
            g.initializer, g.global_constant, g.linkage = init, True, "private"
            self.strings[text] = g
        return self.strings[text]

    def exception_id(self, exception: ExceptionId) -> ll.GlobalVariable:
        """An exception's identity: read-only data `{name, kinds, order, declared}`: the two
        strings the runtime prints an uncaught exception from, its place in `compare`'s order
        (`ExceptionId.order`) and itself (what a local exception's evaluations copy: each of
        them is an identity of its own, `fl_fresh_exception`). Its address is what `phys_eq`
        compares."""
        if exception.key not in self.exception_ids:
            fields = [self.string(exception.name), self.string(exception.kinds), I64(exception.order)]
            struct = ll.Constant.literal_struct([*fields, ll.Constant(PTR, None)]).type
            if self.part is None:
                name, linkage = f"exception.{len(self.exception_ids)}", "private"
            else:
                # Each part that names it has a copy, and the linker keeps one: its address
                # must be the same in every part.
                digest = hashlib.sha256(exception.key.encode()).hexdigest()[:16]
                name, linkage = f"fl.exception.{digest}", "linkonce_odr hidden"
            g = ll.GlobalVariable(self.module, struct, name)
            g.initializer = ll.Constant.literal_struct([*fields, g])
            g.global_constant, g.linkage = True, linkage
            self.exception_ids[exception.key] = g
        return self.exception_ids[exception.key]

    def static_tuple(self, items: list[ll.Value]) -> ll.GlobalVariable:
        """A tuple of constants as read-only data, laid out as an allocated one (a slot of 8
        bytes per item, narrow values in its low byte), as OCaml emits structured constants: no
        allocation at run time, and no block of thousands of stores for LLVM's instruction
        scheduler, whose time is quadratic in a block's length."""
        slots = [I64(item.constant) if isinstance(item, ll.Constant) and item.type in (I1, I8) else item
                 for item in items]
        init = ll.Constant.literal_struct(slots)
        g = ll.GlobalVariable(self.module, init.type, f"tuple.{len(self.static_tuples)}")
        g.initializer, g.global_constant, g.linkage = init, True, "private"
        self.static_tuples.add(id(g))
        return g

    def lower(self) -> ll.Module:
        for f in self.defined:
            FunctionLowering(self, f).lower()
        if self.part is not None and self.ssa.main not in self.part:
            return self.module
        entry = ll.Function(self.module, ll.FunctionType(VOID, []), "fl_program")
        b = ll.IRBuilder(entry.append_basic_block("entry"))
        if self.debug is not None:
            b.call(self.runtime["fl_debug_info"], [])
        if self.global_slots:
            b.store(b.call(self.runtime["fl_alloc_zeroed"], [I64(8 * len(self.global_slots))]), self.globals_record)
        b.call(self.functions[self.ssa.main], [], cconv=self.conventions[self.ssa.main])
        b.ret_void()
        return self.module


def _symbol(name: str) -> str:
    return "fl." + name


class FunctionLowering:
    def __init__(self, owner: ModuleLowering, f: ir.Function) -> None:
        self.owner, self.f = owner, f
        self.fn = owner.functions[f.name]
        self.values: dict[str, ll.Value] = {}
        self.tables = switch_tables(f)
        self.absorbed = {label for table in self.tables.values() for label in table.arms}
        self.lowered = [b for b in f.blocks if b.label not in self.absorbed]
        # What a table lookup passes to its join block's phis, instead of the arms it replaced
        self.table_inputs: dict[str, list[tuple[list[ll.Value], ll.Block]]] = {}
        self.blocks = {b.label: self.fn.append_basic_block(b.label) for b in self.lowered}
        self.ends: dict[str, ll.Block] = {}
        self.builder = ll.IRBuilder()
        self.current_label = ""  # the SSA block being lowered
        self.splits = 0  # LLVM blocks added after calls, for unique names
        self.subprogram = ("", "")  # with -g: the function's DISubprogram and the file it is in
        debug = owner.debug
        if debug is not None:
            program, self.builder.debug_location = debug.subprogram(f.name, _symbol(f.name))
            site = debug.site_of(f.name)
            self.subprogram = (program, site.file if site is not None else debug.main_file)
            self.fn.subprogram = program

    def tail_call_kept(self, t: cps.TailCall | cps.TailApply) -> ll.Value:
        """A tail call made as a call that returns here (`keeps_frames`)."""
        if isinstance(t, cps.TailCall):
            return self.direct_call(t.function, t.args)
        return self.apply(t.closure, t.args, self.f.result, tail=False)

    def keeps_frames(self) -> bool:
        """With -g, whether this is the code of a top-level statement, whose calls are frames
        of backtraces even in tail position (as ocamlopt's module initialisation's)."""
        sites = self.owner.sites
        return sites is not None and self.f.name in sites.toplevel

    def at(self, loc: str | None) -> None:
        """With -g, the instructions from here on are the call's at `loc` (when known)."""
        debug = self.owner.debug
        if debug is not None:
            location = debug.call_location(*self.subprogram, loc)
            if location is not None:
                self.builder.debug_location = location

    def lower(self) -> None:
        phis: list[tuple[ll.PhiInstr, ir.Phi, str, int]] = []
        for block in self.lowered:
            self.current_label = block.label
            self.builder.position_at_end(self.blocks[block.label])
            if block is self.lowered[0]:
                self.receive_parameters()
            for index, phi in enumerate(block.phis):
                node = self.builder.phi(lltype(phi.var.type), name=phi.var.name)
                self.values[phi.var.name] = node
                phis.append((node, phi, block.label, index))
            for x in block.instructions:
                self.values[x.var.name] = self.value(x.var, x.value)
                self.describe_variable(x.var)
            self.terminator(block.terminator)
            self.ends[block.label] = self.builder.block
        for node, phi, label, index in phis:
            for pred, value in phi.inputs:
                if pred not in self.absorbed:
                    node.add_incoming(self.operand(value), self.ends[pred])
            for values, pred_block in self.table_inputs.get(label, ()):
                node.add_incoming(values[index], pred_block)

    def describe_variable(self, var: cps.Var) -> None:
        """With -g, a `let`'s variable that is still there says its value (gdb's `info locals`)."""
        debug, sites = self.owner.debug, self.owner.sites
        if debug is None or sites is None or var.name not in sites.variables or var.type.name == "unit":
            return
        self.builder.block.lines.append(debug.variable_value(
            *self.subprogram, sites.variables[var.name], "", var.type.name, self.values[var.name],
            self.builder.debug_location or debug.location(self.subprogram[0], self.subprogram[1], self.subprogram[1], 0, 0)))

    def receive_parameters(self) -> None:
        """Name the parameters: those in registers are the LLVM function's, the others are
        loaded from `fl_extra_args` before anything else can overwrite it."""
        types = [lltype(p.type) for p in self.f.params]
        registers = iter(self.fn.args)
        extra = 0
        for p, t, kept in zip(self.f.params, types, in_registers(types)):
            if kept:
                self.values[p.name] = next(registers)
            else:
                self.values[p.name] = self.builder.load(self.slot(self.owner.extra_args, extra), typ=t)
                extra += 1
        debug = self.owner.debug
        if debug is not None:
            for index, p in enumerate(self.f.params, 1):
                if p.type.name != "unit":
                    self.builder.block.lines.append(
                        debug.parameter(*self.subprogram, p.name, index, p.type.name, self.values[p.name]))

    def pass_arguments(self, args: list[ll.Value]) -> list[ll.Value]:
        """The arguments a call passes in registers, once the others are stored in `fl_extra_args`."""
        kept = in_registers([a.type for a in args])
        extra = [a for a, k in zip(args, kept) if not k]
        if len(extra) > EXTRA_ARGS:
            raise ValueError(f"a call with more than {EXTRA_ARGS + INTEGER_REGISTERS} arguments")
        for index, arg in enumerate(extra):
            self.builder.store(arg, self.slot(self.owner.extra_args, index))
        return [a for a, k in zip(args, kept) if k]

    # ---------------------------------------------------------------- operands
    def operand(self, o: cps.Operand) -> ll.Value:
        if isinstance(o, cps.Var):
            return self.values[o.name]
        name = o.type.name
        if name == "string":
            return self.owner.string(str(o.value))
        if name == "exnid":
            return self.owner.exception_id(o.value)  # type: ignore[arg-type]
        if name == "char":
            return I8(ord(str(o.value)))
        if name == "unit":
            return I8(0)
        if name == "bool":
            return I1(1 if o.value else 0)
        if name == "float":
            return F64(float(o.value))  # type: ignore[arg-type]
        return I64(int(o.value))  # type: ignore[call-overload]

    def rt(self, name: str, *args: ll.Value) -> ll.Value:
        return self.builder.call(self.owner.runtime[name], list(args))

    def slot(self, record: ll.Value, index: int) -> ll.Value:
        return self.builder.gep(record, [I64(index)], source_etype=I64)

    def allocate(self, values: list[ll.Value]) -> ll.Value:
        """A block of 8-byte slots; from the collector's atomic allocator when nothing in it
        is a pointer (the collector then never scans it)."""
        atomic = all(v.type != PTR for v in values)
        size_bytes = 8 * max(1, len(values))
        size = I64(size_bytes)
        if size_bytes <= SMALL_BLOCK_BYTES:
            record = self.builder.call(self.owner.allocate_small(atomic), [size])
        else:
            record = self.rt("fl_alloc_atomic" if atomic else "fl_alloc", size)
        for i, v in enumerate(values):
            self.builder.store(v, self.slot(record, i))
        if not atomic:
            # fl_alloc's blocks are not cleared, and the collector scans every word of one:
            # a padding word must not hold a pointer of the block's last use
            for i in range(len(values), -(-size_bytes // 16) * 2):
                self.builder.store(I64(0), self.slot(record, i))
        return record

    # ---------------------------------------------------------------- values
    def value(self, var: cps.Var, v: cps.Value) -> ll.Value:
        b = self.builder
        if isinstance(v, cps.Prim) and v.op == "frame_at":
            return self.inlined_frame(v)
        if isinstance(v, cps.Prim):
            return self.primitive(v.op, [self.operand(a) for a in v.args], var.type)
        if isinstance(v, (cps.Call, cps.Apply)):
            result = self.call(var, v)
            if self.raises(v):
                self.propagate(v.loc)
            return result
        if isinstance(v, cps.MakeClosure):
            return self.allocate([self.owner.functions[v.function]] + [self.operand(c) for c in v.captured])
        if isinstance(v, (cps.MakeTuple, cps.MakeBlock)):
            operands = v.items
            items = [self.operand(i) for i in operands]
            mutable = isinstance(v, cps.MakeBlock) and v.mutable
            if not mutable and all(isinstance(i, cps.Const) or id(item) in self.owner.static_tuples
                                   for i, item in zip(operands, items)):
                return self.owner.static_tuple(items)
            return self.allocate(items)
        if isinstance(v, cps.Field):
            offset = 1 if v.record.type.name == "->" else 0  # a closure's slot 0 holds its code
            return b.load(self.slot(self.operand(v.record), v.index + offset), typ=lltype(var.type))
        if isinstance(v, cps.SetField):
            return self.store(self.operand(v.value), self.slot(self.operand(v.record), v.index))
        if isinstance(v, (cps.GlobalLoad, cps.GlobalStore)):
            record = b.load(self.owner.globals_record, typ=PTR)
            slot = self.slot(record, self.owner.global_slots[v.name])
            if isinstance(v, cps.GlobalLoad):
                return b.load(slot, typ=lltype(var.type))
            b.store(self.operand(v.value), slot)
            return I8(0)
        raise AssertionError(f"callc reached LLVM lowering: {v}")

    def call(self, var: cps.Var, v: cps.Call | cps.Apply) -> ll.Value:
        return self.framed_call(v.loc, lambda: self.unframed_call(var, v))

    def unframed_call(self, var: cps.Var, v: cps.Call | cps.Apply) -> ll.Value:
        if isinstance(v, cps.Call):
            return self.direct_call(v.function, v.args)
        return self.apply(v.closure, v.args, var.type, tail=False)

    def direct_call(self, function: str, args: tuple[cps.Operand, ...], tail: str = "") -> ll.Value:
        return self.builder.call(self.owner.functions[function], self.pass_arguments([self.operand(a) for a in args]),
                                 cconv=self.owner.conventions[function], tail=tail)

    def framed_call(self, loc: str | None, make: Callable[[], ll.Value]) -> ll.Value:
        """The call `make` emits; with -g, in a program that asks for its call stack, its place
        is on the runtime's stack of the calls running while it runs: `sites[min(d, N-1)] = place;
        depth = d + 1; call; depth = d` (set back however the call ends, raising too)."""
        self.at(loc)
        sites = self.owner.sites
        site = sites.calls.get(loc) if sites is not None and loc is not None else None
        if site is None or not self.owner.keeps_callstack:
            return make()
        b = self.builder
        depth = b.load(self.owner.callstack_depth, typ=I64)
        last = I64(CALLSTACK_SLOTS - 1)
        index = b.select(b.icmp_unsigned("<", depth, last), depth, last)
        b.store(self.owner.string(site.describe()), b.gep(self.owner.callstack_sites, [index], source_etype=PTR))
        b.store(b.add(depth, I64(1)), self.owner.callstack_depth)
        result = make()
        b.store(depth, self.owner.callstack_depth)
        return result

    def apply(self, closure_operand: cps.Operand, arg_operands: tuple[cps.Operand, ...], result: TCon,
              tail: bool) -> ll.Value:
        """An apply of k arguments (see the module docstring): with k > 1, the full entry
        when the closure's arity is k, else one argument at a time. When a call of the second
        path raises, the result is undefined and the exception pending, as after any call; in
        a tail apply, each call is `musttail` and returns."""
        b = self.builder
        closure, args = self.operand(closure_operand), [self.operand(a) for a in arg_operands]
        closure_type, arg_types = closure_operand.type, [a.type for a in arg_operands]
        if len(args) == 1:
            return self.call_code(closure, closure_type, args, arg_types, result, tail)
        code = b.load(closure, typ=PTR)
        arity = b.load(b.gep(code, [I64(-8)], source_etype=I8), typ=I64)
        self.splits += 1
        full_path = self.fn.append_basic_block(f"{self.current_label}.full{self.splits}")
        curried_path = self.fn.append_basic_block(f"{self.current_label}.curried{self.splits}")
        b.cbranch(arity_matches(b, arity, len(args)), full_path, curried_path).set_weights([1000, 1])
        b.position_at_end(full_path)
        full = b.gep(code, [b.load(b.gep(code, [I64(-16)], source_etype=I8), typ=I64)], source_etype=I8)
        fnty = function_type([closure_type] + arg_types, result)
        join = self.fn.append_basic_block(f"{self.current_label}.applied{self.splits}") if not tail else None
        outcomes = [(self.call_pointer(full, fnty, [closure] + args, tail), b.block)]
        if join is not None:
            b.branch(join)
        b.position_at_end(curried_path)
        for arg, arg_type in zip(args[:-1], arg_types):
            rest_type: TCon = closure_type.args[1]  # type: ignore[assignment]
            closure = self.call_code(closure, closure_type, [arg], [arg_type], rest_type, False)
            closure_type = rest_type
            applied = self.fn.append_basic_block(f"{self.current_label}.partial{self.splits}.{len(outcomes)}")
            outcomes.append((ll.Constant(lltype(result), ll.Undefined), b.block))
            b.cbranch(self.raised(), join if join is not None else self.raising_return(), applied)
            b.position_at_end(applied)
        outcomes.append((self.call_code(closure, closure_type, args[-1:], arg_types[-1:], result, tail), b.block))
        if join is None:
            return outcomes[-1][0]
        b.branch(join)
        b.position_at_end(join)
        phi = b.phi(lltype(result))
        for value, block in outcomes:
            phi.add_incoming(value, block)
        return phi

    def call_code(self, closure: ll.Value, closure_type: TCon, args: list[ll.Value], arg_types: list[TCon],
                  result: TCon, tail: bool) -> ll.Value:
        """A call of a closure's code (slot 0) with one argument."""
        fnty = function_type([closure_type] + arg_types, result)
        return self.call_pointer(self.builder.load(closure, typ=PTR), fnty, [closure] + args, tail)

    def call_pointer(self, code: ll.Value, fnty: ll.FunctionType, args: list[ll.Value], tail: bool) -> ll.Value:
        """A call through a code pointer; in tail position, `musttail` and its return."""
        b = self.builder
        value = b.call(code, self.pass_arguments(args), cconv="tailcc", ftype=fnty, tail="musttail" if tail else "")
        if tail:
            b.ret(value)
        return value

    def raising_return(self) -> ll.Block:
        """A block returning at once with the exception pending (for a caller to see)."""
        self.splits += 1
        block = self.fn.append_basic_block(f"{self.current_label}.raised{self.splits}")
        saved = self.builder.block
        self.builder.position_at_end(block)
        self.builder.ret(ll.Constant(lltype(self.f.result), ll.Undefined))
        self.builder.position_at_end(saved)
        return block

    def raises(self, v: cps.Call | cps.Apply) -> bool:
        return isinstance(v, cps.Apply) or v.function in self.owner.may_raise

    def raised(self) -> ll.Value:
        """Whether the call just made raised (an exception is pending)."""
        b = self.builder
        return b.icmp_unsigned("!=", b.load(self.owner.pending_exception, typ=PTR), ll.Constant(PTR, None))

    def propagate(self, loc: str | None) -> None:
        """After a call with no handler here: if it raised, return at once (the exception stays
        pending for this function's caller; with -g, the call is a frame of its backtrace),
        else carry on in a new block."""
        b = self.builder
        self.splits += 1
        out = self.fn.append_basic_block(f"{self.current_label}.raised{self.splits}")
        carry_on = self.fn.append_basic_block(f"{self.current_label}.returned{self.splits}")
        b.cbranch(self.raised(), out, carry_on)
        b.position_at_end(out)
        self.called_from(loc)
        b.ret(ll.Constant(lltype(self.f.result), ll.Undefined))
        b.position_at_end(carry_on)

    def called_from(self, loc: str | None) -> None:
        """With -g, note that the exception pending leaves through the call at `loc`."""
        sites = self.owner.sites
        site = sites.calls.get(loc) if sites is not None and loc is not None else None
        if site is not None:
            pending = self.builder.load(self.owner.pending_exception, typ=PTR)
            self.rt("fl_called_from", pending, self.owner.string(site.describe()))

    def inlined_frame(self, v: cps.Prim) -> ll.Value:
        """`frame_at(e, loc)`: with -g, the inlined call at `loc` is a frame of e's backtrace."""
        sites, loc = self.owner.sites, v.args[1]
        site = sites.calls.get(str(loc.value)) if sites is not None and isinstance(loc, cps.Const) else None
        if site is not None:
            self.rt("fl_inlined_frame", self.operand(v.args[0]), self.owner.string(site.describe(inlined=True)))
        return I8(0)

    def noting_frame(self, loc: str | None) -> None:
        """With -g, after a call whose handler is in this function: if it raised, note the call
        as a frame of the backtrace, then go on in a block of its own."""
        sites = self.owner.sites
        if sites is None or loc not in sites.calls:
            return
        b = self.builder
        self.splits += 1
        note = self.fn.append_basic_block(f"{self.current_label}.frame{self.splits}")
        carry_on = self.fn.append_basic_block(f"{self.current_label}.noted{self.splits}")
        b.cbranch(self.raised(), note, carry_on)
        b.position_at_end(note)
        self.called_from(loc)
        b.branch(carry_on)
        b.position_at_end(carry_on)

    def terminator(self, t: ir.Terminator) -> None:
        b = self.builder
        if isinstance(t, ir.Invoke):
            v = t.binding.value
            assert isinstance(v, (cps.Call, cps.Apply))
            self.values[t.binding.var.name] = self.call(t.binding.var, v)
            if self.raises(v):
                self.noting_frame(v.loc)
                b.cbranch(self.raised(), self.blocks[t.unwind], self.blocks[t.normal])
            else:
                b.branch(self.blocks[t.normal])
        elif isinstance(t, ir.Raise):
            b.store(self.operand(t.value), self.owner.pending_exception)
            b.ret(ll.Constant(lltype(self.f.result), ll.Undefined))
        elif isinstance(t, ir.Return):
            b.ret(self.operand(t.value))
        elif isinstance(t, ir.Goto):
            b.branch(self.blocks[t.target])
        elif isinstance(t, ir.CondBr):
            b.cbranch(self.operand(t.condition), self.blocks[t.if_true], self.blocks[t.if_false])
        elif isinstance(t, cps.Switch) and self.current_label in self.tables:
            self.table_lookup(t.value, self.tables[self.current_label])
        elif isinstance(t, cps.Switch):
            switch = b.switch(self.operand(t.value), self.blocks[t.default])
            for value, label in t.cases:
                switch.add_case(I64(value), self.blocks[label])
        elif isinstance(t, (cps.TailCall, cps.TailApply)) and self.keeps_frames():
            result = self.framed_call(t.loc, lambda: self.tail_call_kept(t))
            if isinstance(t, cps.TailApply) or t.function in self.owner.may_raise:
                self.propagate(t.loc)
            b.ret(result)
        elif isinstance(t, cps.TailCall):
            self.at(t.loc)
            b.ret(self.direct_call(t.function, t.args, tail="musttail"))
        else:
            self.at(t.loc)
            self.apply(t.closure, t.args, self.f.result, tail=True)

    def table_lookup(self, value: cps.Operand, table: SwitchTable) -> None:
        """Select the arms' constants for `value` from `table`'s columns, then run the one arm
        standing for them all (see `cpsc.llvm.switch_table`)."""
        b = self.builder
        index = b.sub(self.operand(value), I64(table.low))
        found = self.fn.append_basic_block(f"{self.current_label}.found")
        missing = self.fn.append_basic_block(f"{self.current_label}.missing")
        arm = self.fn.append_basic_block(f"{self.current_label}.arm")
        b.cbranch(b.icmp_unsigned("<", index, I64(len(table.columns[0]))), found, missing)
        b.position_at_end(found)
        entries = [self.table_entry(column, index, n) for n, column in enumerate(table.columns)]
        b.branch(arm)
        b.position_at_end(missing)
        defaults = [self.operand(c) for c in table.defaults]
        b.branch(arm)
        b.position_at_end(arm)
        for var, entry, default in zip(table.selected, entries, defaults):
            phi = b.phi(lltype(var.type), name=var.name)
            phi.add_incoming(entry, found)
            phi.add_incoming(default, missing)
            self.values[var.name] = phi
        for x in table.body:
            self.values[x.var.name] = self.value(x.var, x.value)
        if isinstance(table.terminator, ir.Return):
            b.ret(self.operand(table.terminator.value))
            return
        passed = [self.operand(v) for v in table.join_inputs]
        self.table_inputs.setdefault(table.terminator.target, []).append((passed, b.block))
        b.branch(self.blocks[table.terminator.target])

    def table_entry(self, column: tuple[cps.Const, ...], index: ll.Value, n: int) -> ll.Value:
        entries = [self.operand(c) for c in column]
        init = ll.Constant(ll.ArrayType(entries[0].type, len(entries)), entries)
        g = ll.GlobalVariable(self.owner.module, init.type, f"{self.fn.name}.{self.current_label}.table{n}")
        g.initializer, g.global_constant, g.linkage = init, True, "private"
        g.unnamed_addr = True
        slot = self.builder.gep(g, [I64(0), index], inbounds=True, source_etype=init.type)
        return self.builder.load(slot, typ=entries[0].type)

    # ---------------------------------------------------------------- primitives
    def primitive(self, op: str, args: list[ll.Value], result: TCon) -> ll.Value:
        b = self.builder
        if result.name == "float" and args and all(isinstance(a, ll.Constant) and a.type == F64 for a in args):
            # Folded here with x86-64's NaN (sign bit set): LLVM folds 0/0 to a positive NaN
            return F64(evaluate(op, [a.constant for a in args], []))  # type: ignore[attr-defined]
        simple: dict[str, Callable[..., ll.Value]] = {
            "add_int": b.add, "sub_int": b.sub, "mul_int": b.mul, "and_int": b.and_,
            "or_int": b.or_, "xor_int": b.xor, "add_float": b.fadd, "sub_float": b.fsub,
            "mul_float": b.fmul, "div_float": b.fdiv, "and_bool": b.and_,
        }
        if op in simple:
            return simple[op](*args)
        if op in ("div_int", "mod_int"):
            return self.division(op, args[0], args[1])
        if op in ("lsl_int", "lsr_int", "asr_int"):
            return self.shift(op, args[0], args[1])
        if op == "neg_int":
            return b.neg(args[0])
        if op == "neg_float":
            return b.fneg(args[0])
        if op == "not":
            return b.xor(args[0], I1(1))
        if op == "mod_float":
            return self.rt("fmod", *args)
        if op == "pow_float":
            return self.rt("pow", *args)
        if op in C_CALLS:
            return self.rt(op, *args)
        if op == "abs_float":
            return self.rt("fabs", *args)
        if op == "float_of_int":
            return b.sitofp(args[0], F64)
        if op == "int64_bits_of_float":
            return b.bitcast(args[0], I64)
        if op == "int64_float_of_bits":
            return b.bitcast(args[0], F64)
        if op == "int32_bits_of_float":
            return b.sext(b.bitcast(b.fptrunc(args[0], F32), I32), I64)
        if op == "int32_float_of_bits":
            return b.fpext(b.bitcast(b.trunc(args[0], I32), F32), F64)
        if op == "int_of_float":
            return self.rt("fl_int_of_float", *args)
        if op == "string_of_int":
            return self.rt("fl_string_of_int", *args)
        if op == "string_of_float":
            return self.rt("fl_string_of_float", *args)
        if op == "concat_string":
            return self.rt("fl_concat", *args)
        if op == "select_compare":
            return b.select(b.icmp_signed("!=", args[0], I64(0)), args[0], args[1])
        if op in ("print_int", "print_float", "print_string", "print_char", "prerr_string"):
            self.rt("fl_" + op, *args)
            return I8(0)
        if op == "flush_stdout":
            self.rt("fl_flush")
            return I8(0)
        if op == "exit":
            self.rt("fl_exit", *args)
            return ll.Constant(lltype(result), ll.Undefined)
        if op in DATA_OPS:
            return DATA_OPS[op](self, args, result)
        return self.comparison(op, args)

    # ---------------------------------------------------------------- data
    def element(self, array: ll.Value, index: ll.Value, element: ll.Type) -> ll.Value:
        """The address of an array's element (slot 0 holds the length); the CPS conversion
        tested the index. Bools and chars are bytes (see `is_byte_array`)."""
        b = self.builder
        if is_byte_array(element):
            return b.gep(array, [b.add(index, I64(8))], source_etype=I8)
        return b.gep(array, [b.add(index, I64(1))], source_etype=I64)

    def store(self, value: ll.Value, address: ll.Value) -> ll.Value:
        """Store, evaluating to unit."""
        self.builder.store(value, address)
        return I8(0)

    def byte(self, string: ll.Value, index: ll.Value) -> ll.Value:
        b = self.builder
        return b.load(b.gep(string, [b.add(index, I64(8))], source_etype=I8), typ=I8)

    def slot_bits(self, value: ll.Value) -> ll.Value:
        """A value as the 64 bits of the slot holding it."""
        b = self.builder
        if value.type == F64:
            return b.bitcast(value, I64)
        if value.type == PTR:
            return b.ptrtoint(value, I64)
        return value if value.type == I64 else b.zext(value, I64)

    def truth(self, value: ll.Value) -> ll.Value:
        return self.builder.icmp_signed("!=", value, I64(0))

    def caught_exception(self) -> ll.Value:
        """In a landing block: take the pending exception (none is pending after)."""
        b = self.builder
        exception = b.load(self.owner.pending_exception, typ=PTR)
        b.store(ll.Constant(PTR, None), self.owner.pending_exception)
        return exception


    def comparison(self, op: str, args: list[ll.Value]) -> ll.Value:
        b = self.builder
        kind, _, tname = op.partition("_")
        a, c = args
        if tname == "unit":
            return I64(0) if kind == "compare" else I1(1 if kind in ("eq", "le", "ge") else 0)
        if tname == "string":
            a, c, tname = self.rt("fl_compare_string", a, c), I64(0), "int"
        if tname == "float" and kind == "compare":
            return self.rt("fl_compare_float", a, c)
        if kind == "compare":
            signed = tname == "int"
            cmp = b.icmp_signed if signed else b.icmp_unsigned
            greater = b.zext(cmp(">", a, c), I64)
            less = b.zext(cmp("<", a, c), I64)
            return b.sub(greater, less)
        if tname == "float":
            return b.fcmp_unordered("!=", a, c) if kind == "ne" else b.fcmp_ordered(ICMP[kind], a, c)
        if tname == "int":
            return b.icmp_signed(ICMP[kind], a, c)
        return b.icmp_unsigned(ICMP[kind], a, c)

    def division(self, op: str, a: ll.Value, c: ll.Value) -> ll.Value:
        """OCaml semantics: `min_int / -1` wraps instead of trapping (the CPS conversion tested
        the divisor for zero first)."""
        b = self.builder
        minus_one = b.icmp_signed("==", c, I64(-1))
        safe = b.select(minus_one, I64(1), c)
        if op == "div_int":
            return b.select(minus_one, b.neg(a), b.sdiv(a, safe))
        return b.select(minus_one, I64(0), b.srem(a, safe))

    def shift(self, op: str, a: ll.Value, c: ll.Value) -> ll.Value:
        b = self.builder
        in_range = b.icmp_unsigned("<", c, I64(64))
        amount = b.select(in_range, c, I64(0))
        if op == "lsl_int":
            return b.select(in_range, b.shl(a, amount), I64(0))
        if op == "lsr_int":
            return b.select(in_range, b.lshr(a, amount), I64(0))
        return b.ashr(a, b.select(in_range, c, I64(63)))


def _immediate(f: FunctionLowering, args: list[ll.Value], result: TCon) -> ll.Value:
    """Constant constructor k is the odd number 2k+1: never a pointer the collector follows,
    and told from a block (even, aligned) by its low bit."""
    if isinstance(args[0], ll.Constant) and isinstance(args[0].constant, int):
        constant = ll.Constant(I64, 2 * args[0].constant + 1).inttoptr(PTR)
        f.owner.constants.append(constant)
        f.owner.static_tuples.add(id(constant))  # a constant, so blocks of it can be static
        return constant
    b = f.builder
    return b.inttoptr(b.add(b.shl(args[0], I64(1)), I64(1)), PTR)


def _is_block(f: FunctionLowering, args: list[ll.Value], result: TCon) -> ll.Value:
    b = f.builder
    return b.icmp_unsigned("==", b.and_(b.ptrtoint(args[0], I64), I64(1)), I64(0))



def _array_make(f: FunctionLowering, args: list[ll.Value], result: TCon) -> ll.Value:
    element = lltype(result.args[0])  # type: ignore[arg-type]
    if is_byte_array(element):
        return f.rt("fl_string_make", args[0], f.builder.zext(args[1], I8) if element == I1 else args[1])
    atomic = I64(0 if element == PTR else 1)
    return f.rt("fl_array_make", args[0], f.slot_bits(args[1]), atomic)


def _string_of_char_array(f: FunctionLowering, args: list[ll.Value], result: TCon) -> ll.Value:
    """A copy of the array's bytes (a char array is laid out as a string is)."""
    return f.rt("fl_string_sub", args[0], I64(0), f.builder.load(args[0], typ=I64))


def _effect(f: FunctionLowering, function: str, args: list[ll.Value]) -> ll.Value:
    """A runtime call done for its effect: its result is ()."""
    f.rt(function, *args)
    return I8(0)


DATA_OPS: dict[str, Callable[[FunctionLowering, list[ll.Value], TCon], ll.Value]] = {
    "immediate": _immediate,
    "is_block": _is_block,
    "immediate_value": lambda f, a, r: f.builder.ashr(f.builder.ptrtoint(a[0], I64), I64(1)),
    "phys_eq": lambda f, a, r: f.builder.icmp_unsigned("==", a[0], a[1]),
    "array_make": _array_make,
    "dummy_block": lambda f, a, r: f.rt("fl_alloc_zeroed", f.builder.shl(a[0], I64(3))),
    "dummy_array": lambda f, a, r: f.rt("fl_alloc_zeroed", f.builder.shl(a[0], I64(3))),
    "update_dummy": lambda f, a, r: _effect(f, "fl_update_dummy", a),
    "fresh_exception": lambda f, a, r: f.rt("fl_fresh_exception", a[0]),
    "exception_order": lambda f, a, r: f.builder.load(f.slot(a[0], 2), typ=I64),
    "declared_exception": lambda f, a, r: f.builder.load(f.slot(a[0], 3), typ=PTR),
    "array_empty": lambda f, a, r: f.rt("fl_array_make", I64(0), I64(0), I64(1)),
    "array_length": lambda f, a, r: f.builder.load(a[0], typ=I64),
    "array_unsafe_get": lambda f, a, r: f.builder.load(f.element(a[0], a[1], lltype(r)), typ=lltype(r)),
    "array_unsafe_set": lambda f, a, r: f.store(a[2], f.element(a[0], a[1], a[2].type)),
    "string_length": lambda f, a, r: f.builder.load(a[0], typ=I64),
    "string_unsafe_get": lambda f, a, r: f.byte(a[0], a[1]),
    "string_make": lambda f, a, r: f.rt("fl_string_make", *a),
    "string_sub": lambda f, a, r: f.rt("fl_string_sub", *a),
    "string_of_char_array": _string_of_char_array,
    "char_array_of_string": _string_of_char_array,  # the same copy: the two layouts are one
    "exn_to_string": lambda f, a, r: f.rt("fl_exn_to_string", *a),
    "char_code": lambda f, a, r: f.builder.zext(a[0], I64),
    "int_of_string": lambda f, a, r: f.rt("fl_int_of_string", *a),
    "read_line": lambda f, a, r: f.rt("fl_read_line"),
    "float_of_string": lambda f, a, r: f.rt("fl_float_of_string", *a),
    "int_of_string_ok": lambda f, a, r: f.truth(f.rt("fl_int_of_string_ok", *a)),
    "float_of_string_ok": lambda f, a, r: f.truth(f.rt("fl_float_of_string_ok", *a)),
    "at_eof": lambda f, a, r: f.truth(f.rt("fl_at_eof")),
    "hash": lambda f, a, r: f.rt("fl_hash", a[0], a[1], a[2], a[3], f.slot_bits(a[4])),
    "argv": lambda f, a, r: f.rt("fl_argv"),
    "random_seed": lambda f, a, r: f.rt("fl_random_seed"),
    "open_channel": lambda f, a, r: f.rt("fl_open_channel", *a),
    "channel_error": lambda f, a, r: f.rt("fl_channel_error"),
    "close_channel": lambda f, a, r: _effect(f, "fl_close_channel", a),
    "channel_write": lambda f, a, r: _effect(f, "fl_channel_write", a),
    "channel_flush": lambda f, a, r: _effect(f, "fl_channel_flush", a),
    "channel_read_char": lambda f, a, r: f.rt("fl_channel_read_char", *a),
    "channel_read_available": lambda f, a, r: f.rt("fl_channel_read_available", *a),
    "channel_at_eof": lambda f, a, r: f.truth(f.rt("fl_channel_at_eof", *a)),
    "channel_read_line": lambda f, a, r: f.rt("fl_channel_read_line", *a),
    "remove_file": lambda f, a, r: f.truth(f.rt("fl_remove_file", *a)),
    "file_exists": lambda f, a, r: f.truth(f.rt("fl_file_exists", *a)),
    "is_directory": lambda f, a, r: f.rt("fl_is_directory", *a),
    "rename": lambda f, a, r: f.truth(f.rt("fl_rename", *a)),
    "getcwd": lambda f, a, r: f.rt("fl_getcwd"),
    "executable_name": lambda f, a, r: f.rt("fl_executable_name"),
    "chdir": lambda f, a, r: f.truth(f.rt("fl_chdir", *a)),
    "mkdir": lambda f, a, r: f.truth(f.rt("fl_mkdir", *a)),
    "rmdir": lambda f, a, r: f.truth(f.rt("fl_rmdir", *a)),
    "readdir": lambda f, a, r: f.rt("fl_readdir", *a),
    "command": lambda f, a, r: f.rt("fl_command", *a),
    "channel_length": lambda f, a, r: f.rt("fl_channel_length", *a),
    "channel_pos": lambda f, a, r: f.rt("fl_channel_pos", *a),
    "channel_seek": lambda f, a, r: f.truth(f.rt("fl_channel_seek", *a)),
    "cpu_time": lambda f, a, r: f.rt("fl_cpu_time"),
    "gc_counter": lambda f, a, r: f.rt("fl_gc_counter", *a),
    "has_env": lambda f, a, r: f.truth(f.rt("fl_has_env", *a)),
    "raise_at": lambda f, a, r: _effect(f, "fl_raise_at", a) if f.owner.sites is not None else I8(0),
    "backtrace_record": lambda f, a, r: _effect(f, "fl_backtrace_record", [f.builder.zext(a[0], I64)]),
    "backtrace_status": lambda f, a, r: f.truth(f.rt("fl_backtrace_status")),
    "backtrace_slots": lambda f, a, r: f.rt("fl_backtrace_slots"),
    "backtrace_restore": lambda f, a, r: _effect(f, "fl_backtrace_restore", a),
    "callstack": lambda f, a, r: f.rt("fl_callstack", *a),
    "getenv": lambda f, a, r: f.rt("fl_getenv", *a),
    "format_int": lambda f, a, r: f.rt("fl_format_int", *a),
    "format_float": lambda f, a, r: f.rt("fl_format_float", *a),
    "format_string": lambda f, a, r: f.rt("fl_format_string", *a),
    "format_char": lambda f, a, r: f.rt("fl_format_char", *a),
    "char_chr": lambda f, a, r: f.builder.trunc(a[0], I8),
    "compare_partial_float": lambda f, a, r: f.rt("fl_compare_float_partial", *a),
    "caught_exception": lambda f, a, r: f.caught_exception(),
}


def functions_that_may_raise(module: ir.Module) -> set[str]:
    """The functions an exception may leave: those that raise one out, call a closure (which
    may raise) without a handler, or call one of these without a handler. Calls of the others
    need no test after them."""
    raising: set[str] = set()
    callers: dict[str, list[str]] = {}
    for f in module.functions:
        for block in f.blocks:
            term = block.terminator
            if isinstance(term, (ir.Raise, cps.TailApply)) or any(
                    isinstance(x.value, cps.Apply) for x in block.instructions):
                raising.add(f.name)
            callees = [x.value.function for x in block.instructions if isinstance(x.value, cps.Call)]
            if isinstance(term, cps.TailCall):
                callees.append(term.function)
            for callee in callees:
                callers.setdefault(callee, []).append(f.name)
    work = list(raising)
    while work:
        for caller in callers.get(work.pop(), []):
            if caller not in raising:
                raising.add(caller)
                work.append(caller)
    return raising


def lower_module(module: ir.Module, sites: DebugSites | None = None) -> ll.Module:
    return ModuleLowering(module, sites=sites).lower()


def lower_part(module: ir.Module, part: set[str], may_raise: set[str],
               sites: DebugSites | None = None) -> ll.Module:
    """The LLVM module of one part of the functions (`cpsc.llvm.partition`); the part that
    holds `main` defines the program's entry. `may_raise` is `functions_that_may_raise`."""
    return ModuleLowering(module, part, may_raise, sites).lower()
