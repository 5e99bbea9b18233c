#include "common.h"
static long tak(long x, long y, long z) { return y < x ? tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y)) : z; }
int main(int argc, char **argv) {
    long total = 0, n = size(argc, argv, 800);
    for (long i = 1; i <= n; i++) total += tak(18 + i % 3, 12, 6);
    printf("%ld\n", total); return 0;
}
