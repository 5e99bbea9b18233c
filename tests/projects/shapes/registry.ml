module Names = Counter.Make (String)

let shapes : Shape.t list ref = ref []
let seen = ref Names.empty

let () = Log.say "registry: ready"

let register s =
  shapes := s :: !shapes;
  seen := Names.add (Shape.name s) !seen;
  Log.say "registered a %s" (Shape.name s)

let total_area () = List.fold_left (fun acc s -> acc +. Shape.area s) 0. !shapes

let names () = Names.to_list !seen
