"""The functional CPS IR, and nothing else: `ir.py` (the nodes and their invariants: functions,
continuations, which are the basic blocks, with parameters, which are the phis), `program.py` (a
program of them, and each function's continuations in reverse postorder) over `store.py` (its
versioned store), `printer.py`, `parser.py` and `grammar.lark` (the text form), `verify.py`, `interp.py`,
`rewrite.py` (renaming, relabelling, uses, live functions), `primops.py` (the primitives' types
and meaning), `analysis.py` (what any pass asks of code), `dominance.py`, `graphs.py`,
`names.py`, `sites.py`, `dot.py`. It imports no front-end stage:
the AST becomes CPS in `cpsc.to_cps`."""
