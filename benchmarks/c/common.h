/* C twins of the FL benchmarks (gcc -O2): the same algorithm on the same data, to show what
   the machine can do. The first argument, if given, is the size, as for the FL programs. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
static long size(int argc, char **argv, long fallback) { return argc > 1 ? atol(argv[1]) : fallback; }
