module type ORDERED = sig
  type t
  val compare : t -> t -> int
end

module Make (X : ORDERED) = struct
  type elt = X.t
  module M = Map.Make (X)
  type t = int M.t
  let empty = M.empty
  let add x m = M.add x (1 + Option.value ~default:0 (M.find_opt x m)) m
  let count x m = Option.value ~default:0 (M.find_opt x m)
  let to_list m = M.bindings m
end
