(* sees its sibling as Table, the library's other module *)
let () = print_endline ("codec: linked, as " ^ __MODULE__)
let encode pairs = String.concat "," (List.map (fun (w, n) -> w ^ "=" ^ string_of_int n) pairs)
let _ = Table.empty
