let () =
  Registry.register (Shape.circle 1.);
  Registry.register (Shape.rectangle 2. 3.);
  Registry.register (Shape.circle 2.);
  Printf.printf "total area %.2f\n" (Registry.total_area ());
  List.iter (fun (n, c) -> Printf.printf "%s: %d\n" n c) (Registry.names ());
  let a, b = Shape.map_pair string_of_int (1, 2) in
  let c, d = Shape.map_pair Shape.area (Shape.circle 1., Shape.rectangle 1. 1.) in
  Printf.printf "%s %s %g %g %s\n" a b c d (String.make (Banner.width / 4) '=');
  Log.say "%d messages" !Log.count;
  (try ignore (Shape.circle 0.) with Shape.Invalid_shape m -> Log.say "refused: %s" m);
  ignore (Shape.rectangle 1. (-1.))
