let () = print_int (Util.square 3)
