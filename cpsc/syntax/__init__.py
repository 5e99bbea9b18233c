"""Front end: source text to AST (lexing, parsing, diagnostics, the reference interpreter)."""
