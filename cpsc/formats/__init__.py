"""Format strings: Printf, Format and Scanf calls given a literal format, rewritten into FL as the
module language is elaborated (`cpsc.elaborate`), and the formats that the type checker types."""
