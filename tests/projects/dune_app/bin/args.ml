let () = print_endline ("args: linked, as " ^ __MODULE__)
let words = ["pear"; "apple"; "fig"; "apple"; "kiwi"; "pear"; "apple"]
exception Usage of string
