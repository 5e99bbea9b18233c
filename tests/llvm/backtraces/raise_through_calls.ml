(* compare: whole *)
(* A raise leaves through two calls to a handler, then through three uncaught. *)
exception Boom of int

let f x =
  if x > 2 then raise (Boom x) else x + 1

let g x =
  let y = f x in
  y * 2

let h () =
  try g 5 with Boom n when n < 0 -> 0

let () =
  Printexc.record_backtrace true;
  (try ignore (g 3) with Boom _ -> Printexc.print_backtrace stdout);
  (try ignore (h ()) with e -> print_endline (Printexc.to_string e); print_string (Printexc.get_backtrace ()));
  ignore (h ())
