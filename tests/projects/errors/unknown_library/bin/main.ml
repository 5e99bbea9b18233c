let () = print_endline (Str.global_replace (Str.regexp "a") "b" "banana")
