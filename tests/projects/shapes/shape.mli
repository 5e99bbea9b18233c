(* Shapes with an abstract representation: only this interface's functions make one. *)
type t

exception Invalid_shape of string

val circle : float -> t
val rectangle : float -> float -> t
val area : t -> float
val name : t -> string

(* polymorphic, used at two types from another unit *)
val map_pair : ('a -> 'b) -> 'a * 'a -> 'b * 'b
