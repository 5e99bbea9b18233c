val register : Shape.t -> unit
val total_area : unit -> float
val names : unit -> (string * int) list
