(* Printexc.get_callstack: the calls running, innermost first (at -O0, where none is inlined) *)
let show () = print_string (Printexc.raw_backtrace_to_string (Printexc.get_callstack 10))
let rec depth n = if n = 0 then (show (); 0) else 1 + depth (n - 1)
let outer () = ignore (depth 2); print_endline "--"
let () =
  show ();
  print_endline "--";
  outer ();
  print_int (List.length (String.split_on_char '\n' (Printexc.raw_backtrace_to_string (Printexc.get_callstack 2))))
