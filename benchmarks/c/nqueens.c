#include "common.h"
/* The placed columns as a linked list on the stack, as the FL program's list. */
typedef struct cell { long col; const struct cell *rest; } cell;
static int safe(long col, long dist, const cell *placed) {
    for (; placed; placed = placed->rest, dist++)
        if (placed->col == col || labs(placed->col - col) == dist) return 0;
    return 1;
}
static long place(long n, long row, const cell *placed) {
    if (row == n) return 1;
    long count = 0;
    for (long col = 0; col < n; col++)
        if (safe(col, 1, placed)) { cell c = {col, placed}; count += place(n, row + 1, &c); }
    return count;
}
int main(int argc, char **argv) { printf("%ld\n", place(size(argc, argv, 12), 0, NULL)); return 0; }
