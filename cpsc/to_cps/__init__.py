"""AST to CPS: the monomorphic typed AST becomes the CPS IR (`convert`), a match's decision tree
becomes continuations (`match`), and each type compared structurally gets its comparison
function (`compare`)."""
