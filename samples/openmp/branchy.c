// ci-args: 4096
// ci-args: 10000 3
//
// branchy.c - a per-element loop whose work depends on the data: a
// threshold picks a heavy (exp/sqrt series) or a light (polynomial) path,
// and an if/else with similar arithmetic on both sides calls classify(),
// itself a three-way if/else. The input varies from one element to the
// next, so on a GPU neighbouring threads of a warp take different sides.
//
// Shows: divergent branches and calls to user-defined functions inside an
// OpenMP loop (the translation has to make them device functions).
//
// All arrays are allocated in run(), the function holding the loop; run()
// times only its compute part and returns the milliseconds.
//
// Usage: branchy [n] [reps]   (defaults 1<<24, 1)
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct results {
  double sum_out, sum_w, out_first, out_mid, w_last;
};

static double light(double v)
{
  return ((0.5 * v - 1.25) * v + 2.0) * v + 0.125;
}

static double heavy(double v)
{
  double s = 0.0;
  for (int k = 1; k <= 8; k++)
    s += exp(-v * k) * sqrt(v + k);
  return s;
}

static double classify(double v)
{
  if (v < 0.25)
    return light(v);
  else if (v < 0.6)
    return sqrt(v) * light(1.0 - v);
  else
    return heavy(v) - v;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double run(int n, struct results *res)
{
  double *in = (double *)malloc((size_t)n * sizeof(double));
  double *out = (double *)malloc((size_t)n * sizeof(double));
  double *w = (double *)malloc((size_t)n * sizeof(double));
  if (!in || !out || !w) {
    free(in);
    free(out);
    free(w);
    return -1.0;
  }
  for (int i = 0; i < n; i++) {
    in[i] = (double)(((i % 101) * 37) % 101) / 101.0;
    out[i] = 0.0;
    w[i] = 0.0;
  }
  const double t = 0.7;

  double t0 = now_ms();
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double v = in[i];
    out[i] = v > t ? heavy(v) : light(v);
    if (v < 0.5)
      w[i] = classify(v) * 2.0 + v * v;
    else
      w[i] = classify(1.0 - v) * 0.5 - v * v;
  }
  double elapsed = now_ms() - t0;

  res->sum_out = 0.0;
  res->sum_w = 0.0;
  for (int i = 0; i < n; i++) {
    res->sum_out += out[i];
    res->sum_w += w[i];
  }
  res->out_first = out[0];
  res->out_mid = out[n / 2];
  res->w_last = w[n - 1];
  free(in);
  free(out);
  free(w);
  return elapsed;
}

static int cmp_double(const void *p, const void *q)
{
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

// region_ms <median> <min> <max>; with more than two reps the first one is a
// warm-up and left out.
static void print_region(double *ms, int reps)
{
  int first = reps > 2 ? 1 : 0;
  int k = reps - first;
  double *t = ms + first;
  qsort(t, k, sizeof(double), cmp_double);
  double median = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
  fprintf(stderr, "region_ms %.4f %.4f %.4f\n", median, t[0], t[k - 1]);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: branchy [n] [reps]\n");
    return 2;
  }
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  struct results res;
  for (int r = 0; r < reps; r++) {
    ms[r] = run(n, &res);
    if (ms[r] < 0) {
      fprintf(stderr, "branchy: out of memory\n");
      return 1;
    }
  }
  print_region(ms, reps);
  printf("checksum sum_out %.17g\n", res.sum_out);
  printf("checksum sum_w %.17g\n", res.sum_w);
  printf("checksum out_first %.17g\n", res.out_first);
  printf("checksum out_mid %.17g\n", res.out_mid);
  printf("checksum w_last %.17g\n", res.w_last);
  free(ms);
  return 0;
}
