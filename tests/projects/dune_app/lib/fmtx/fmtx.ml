let pad n s = Spaces.pad_right n s
