let () = print_endline "words: linked"
let normalise w = String.lowercase_ascii (String.trim w)
