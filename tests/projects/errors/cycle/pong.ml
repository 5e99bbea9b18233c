let pong n = if n = 0 then "pong" else Ping.ping (n - 1)
