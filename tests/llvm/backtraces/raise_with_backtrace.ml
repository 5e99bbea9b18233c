(* compare: whole *)
(* Printexc.raise_with_backtrace: the backtrace restored, raised again where it is called *)
let f () = raise Exit
let () =
  Printexc.record_backtrace true;
  (try (try f () with e -> Printexc.raise_with_backtrace e (Printexc.get_raw_backtrace ())) with _ -> Printexc.print_backtrace stdout);
  print_endline "--";
  let keep g = try g () with e -> let bt = Printexc.get_raw_backtrace () in print_endline "cleanup"; Printexc.raise_with_backtrace e bt in
  (try keep f with _ -> Printexc.print_backtrace stdout)
