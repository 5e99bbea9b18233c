#include "common.h"
static long ack(long m, long n) { return m == 0 ? n + 1 : n == 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)); }
int main(int argc, char **argv) {
    long total = 0, n = size(argc, argv, 60);
    for (long i = 1; i <= n; i++) total += ack(2, 1000 + i) + ack(3, 7);
    printf("%ld\n", ack(3, 9 * n / 60) + total); return 0;
}
