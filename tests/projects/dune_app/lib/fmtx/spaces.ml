let () = print_endline "spaces: linked"
let pad_right n s = if String.length s >= n then s else s ^ String.make (n - String.length s) ' '
