type t = Circle of float | Rectangle of float * float

exception Invalid_shape of string

let check what x = if x <= 0. then raise (Invalid_shape (Printf.sprintf "%s %g" what x))

let circle r = check "radius" r; Circle r
let rectangle w h = check "width" w; check "height" h; Rectangle (w, h)

let area = function
  | Circle r -> 3.0 *. r *. r
  | Rectangle (w, h) -> w *. h

let name = function Circle _ -> "circle" | Rectangle _ -> "rectangle"

(* not in the interface: hidden from the other units *)
let secret = 42

let map_pair f (a, b) = (f a, f b)
