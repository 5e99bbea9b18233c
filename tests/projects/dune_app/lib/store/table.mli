type t
exception Missing of string
val empty : t
val add : string -> t -> t
val find : string -> t -> int
val to_list : t -> (string * int) list
