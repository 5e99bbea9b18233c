"""Source text to AST: lexing and parsing (`parser.py`, `lexical.py`, the AST built by `rules/`
as the grammar's rules are reduced), constructs rewritten as they are parsed (`desugar.py`), the
AST itself (`ast.py`, `module_ast.py`) and diagnostics (`diagnostics.py`)."""
