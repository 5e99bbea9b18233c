let () = print_endline (Ping.ping 3)
