(* No interface: everything here is visible. Its effects run when it is linked. *)
let () = print_endline "log: start"

let count = ref 0

let say fmt = incr count; Printf.printf ("[%d] " ^^ fmt ^^ "\n") !count
