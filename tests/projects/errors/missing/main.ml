let () = print_endline (Helpers.greeting "world")
