"""Hindley-Milner type inference with let-polymorphism and the value restriction."""
