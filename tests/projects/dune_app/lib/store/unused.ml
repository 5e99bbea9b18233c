let () = print_endline "unused: must not be linked"
