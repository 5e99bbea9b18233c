module M = Map.Make (String)
type t = int M.t
exception Missing of string
let () = print_endline ("table: " ^ Words.normalise "  Linked ")
let empty = M.empty
let add w t = let w = Words.normalise w in M.add w (1 + Option.value ~default:0 (M.find_opt w t)) t
let find w t = match M.find_opt w t with Some n -> n | None -> raise (Missing w)
let to_list = M.bindings
