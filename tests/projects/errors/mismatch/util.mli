(* the interface promises what the implementation does not give *)
val square : int -> int
val cube : int -> int
