(* Independent of the others: linked by name among the units ready at the same time *)
let () = print_endline "banner: hello"

let width = 20
