#include "common.h"
int main(int argc, char **argv) {
    long n = size(argc, argv, 100000000), acc = 0;
    /* the FL loop: loop n acc = if n = 0 then acc else loop (n - 1) (acc + n land 7) */
    for (long i = n; i > 0; i--) acc += i & 7;
    printf("%ld\n", acc); return 0;
}
