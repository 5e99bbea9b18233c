"""What every stage leans on and no stage is: the cache folder, deep recursion, the shipped files,
stage timing, compiled-or-source module selection."""
