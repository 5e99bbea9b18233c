(* Store.Table is the library's module `table`, seen from outside the library *)
let () =
  let t = List.fold_left (fun t w -> Store.Table.add w t) Store.Table.empty Args.words in
  List.iter (fun (w, n) -> print_endline (Fmtx.pad 8 w ^ string_of_int n)) (Store.Table.to_list t);
  print_endline (Store.Codec.encode (Store.Table.to_list t));
  Printf.printf "%s\n" (Printexc.to_string (Store.Table.Missing "plum"));
  Printf.printf "%s\n" (Printexc.to_string (Args.Usage "x"));
  ignore (Store.Table.find "plum" t)
