/* spectral_norm_fun.fl in C: the matrix passed to the kernel as a function pointer. */
#include "common.h"
#include <math.h>
static double eval_a(long i, long j) { return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1); }
static double eval_at(long i, long j) { return eval_a(j, i); }
static void mul_mv(double (*m)(long, long), long n, const double *v, double *out) {
    for (long i = 0; i < n; i++) { double s = 0; for (long j = 0; j < n; j++) s += m(i, j) * v[j]; out[i] = s; }
}
static void mul_atav(long n, const double *v, double *atav) {
    double *u = calloc((size_t)n, sizeof *u); mul_mv(eval_a, n, v, u); mul_mv(eval_at, n, u, atav); free(u);
}
int main(int argc, char **argv) {
    long n = size(argc, argv, 1000);
    double *u = malloc((size_t)n * sizeof *u), *v = calloc((size_t)n, sizeof *v);
    for (long i = 0; i < n; i++) u[i] = 1.0;
    for (int k = 0; k < 10; k++) { mul_atav(n, u, v); mul_atav(n, v, u); }
    double vbv = 0, vv = 0;
    for (long i = 0; i < n; i++) { vbv += u[i] * v[i]; vv += v[i] * v[i]; }
    printf("%.9f\n", sqrt(vbv / vv)); return 0;
}
