(* Frames named by modules and local functions, through a closure, uncaught at the end. *)
module M = struct
  module N = struct
    let check x = if x > 3 then raise (Invalid_argument "big") else x
  end
end

let g x =
  let k z = M.N.check z + 1 in
  let r = List.map (fun y -> k y * 2) [x; x + 1] in
  List.hd r + 1

let run x = print_int (g x); print_newline ()

let () =
  run 1;
  run 4
