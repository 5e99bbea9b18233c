#include "common.h"
static long inside(double cr, double ci) {
    double zr = 0, zi = 0;
    for (long k = 0; k < 50; k++) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0) return 0;
        zi = 2.0 * zr * zi + ci; zr = zr2 - zi2 + cr;
    }
    return 1;
}
int main(int argc, char **argv) {
    long n = size(argc, argv, 1600), count = 0;
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++)
            count += inside(2.0 * (double)x / (double)n - 1.5, 2.0 * (double)y / (double)n - 1.0);
    printf("%ld\n", count); return 0;
}
