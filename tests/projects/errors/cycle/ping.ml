let ping n = if n = 0 then "ping" else Pong.pong (n - 1)
