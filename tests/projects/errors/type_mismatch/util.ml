let square x = x ^ x
