let () = print_endline "args: linked"
let words = ["pear"; "apple"; "fig"; "apple"; "kiwi"; "pear"; "apple"]
exception Usage of string
