(* the library's module of its own name is its interface *)
val pad : int -> string -> string
