"""The `cpsc` command line."""
