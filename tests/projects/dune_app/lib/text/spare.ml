let () = print_endline "spare: not needed, not linked"
