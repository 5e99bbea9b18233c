"""What FL means at run time, shared by the front end, the IR and the three interpreters: the
primitives and their meaning on Python values (`builtins`), the interpreters' run-time support
(`values`), OCaml's `Hashtbl.hash` (`hashing`) and Printf's conversions (`formatting`). It imports
no stage: every stage may import it."""
