val square : int -> int
