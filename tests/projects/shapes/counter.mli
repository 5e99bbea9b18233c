module type ORDERED = sig
  type t
  val compare : t -> t -> int
end

module Make (X : ORDERED) : sig
  type elt = X.t
  type t
  val empty : t
  val add : elt -> t -> t
  val count : elt -> t -> int
  val to_list : t -> (elt * int) list
end
