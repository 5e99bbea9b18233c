#include "common.h"
static void primes_below(long n) {
    char *composite = calloc((size_t)n, 1);
    long count = 0, last = 0;
    for (long i = 2; i < n; i++)
        if (!composite[i]) { count++; last = i; for (long j = i * i; j < n; j += i) composite[j] = 1; }
    printf("%ld %ld\n", count, last);
    free(composite);
}
int main(int argc, char **argv) { long n = size(argc, argv, 10000000); primes_below(n); primes_below(2 * n); return 0; }
