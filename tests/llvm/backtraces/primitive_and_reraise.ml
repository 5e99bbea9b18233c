(* compare: whole *)
(* Raises of primitive operations, a handler raising again what it caught (and after raising
   something else), and a raise that starts again with the same exception. *)
let f () = raise Exit

let () =
  Printexc.record_backtrace true;
  let a = [| 1; 2 |] in
  (try ignore a.(f () + 5) with e -> print_endline (Printexc.to_string e); Printexc.print_backtrace stdout);
  let n = Array.length a - 2 in
  (try ignore a.(n + 7) with e -> print_endline (Printexc.to_string e); Printexc.print_backtrace stdout);
  (try ignore (10 / n) with e -> print_endline (Printexc.to_string e); Printexc.print_backtrace stdout);
  (try (try f () with e -> ignore (1 + 1); raise e) with _ -> Printexc.print_backtrace stdout);
  print_endline "--";
  (try (try f () with e -> (try raise Not_found with _ -> ()); raise e) with _ -> Printexc.print_backtrace stdout);
  print_endline "--";
  (try f () with _ -> ());
  (try f () with _ -> Printexc.print_backtrace stdout);
  print_endline (string_of_bool (Printexc.backtrace_status ()))
