// refill_shapes.cu - the work refill's shapes (issue #30), for the CPU
// equivalence test: each kernel works on one item per thread with a loop of
// data-dependent length. Rewritten with the refill forced, the program must
// print what the original prints (tests/scripts/equivalence.sh).
//
// Usage: refill_shapes [n]
// ci-args: 700
// ci-args: 2500
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// while, range check around the item's code.
__global__ void dec2zero(int *v, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    while (v[x] > 0) {
      v[x]--;
    }
  }
}

// Early return, prologue declarations, epilogue store.
__global__ void escape_time(int *iters, int width, int height, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height)
    return;
  float cx = -2.0f + 3.0f * (float)(p % width) / (float)width;
  float cy = -1.5f + 3.0f * (float)(p / width) / (float)height;
  float zx = 0.0f, zy = 0.0f;
  int it = 0;
  while (zx * zx + zy * zy <= 4.0f && it < max_iter) {
    float t = zx * zx - zy * zy + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++it;
  }
  iters[p] = it;
}

// for with break and continue, a variable declared without a value.
__global__ void collatz(const unsigned *__restrict__ start,
                        int *__restrict__ steps, unsigned *__restrict__ peak,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = start[i];
    unsigned top = v;
    int k;
    for (k = 0; k < 500; ++k) {
      if (v <= 1u)
        break;
      if (v & 1u) {
        v = 3u * v + 1u;
        if (v > top)
          top = v;
        continue;
      }
      v /= 2u;
    }
    steps[i] = k;
    peak[i] = top;
  }
}

// do-while, a declaration between the item and its check that uses the
// item, and declarations in the epilogue.
__global__ void digits(const int *__restrict__ in, int *__restrict__ out,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int shifted = i + 1;
  if (i >= n)
    return;
  int v = in[i] < 0 ? -in[i] : in[i];
  int count = 0, sum = 0;
  do {
    sum += v % 10;
    v /= 10;
    ++count;
  } while (v != 0);
  int packed = count * 1000 + sum;
  out[i] = packed + shifted % 7;
}

static unsigned long long state = 12345u;
static unsigned next_rand() {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(state >> 33);
}

static unsigned long long sum_of(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 700;
  bool ok = true;
  // dec2zero: a full grid of 64-thread blocks, a grid covering half of the
  // elements (the other half stays), and 48-thread blocks (not whole warps).
  std::vector<int> v(n), got(n);
  int *dv;
  cudaMalloc((void **)&dv, n * sizeof(int));
  const int blocks[3] = {64, 64, 48};
  for (int c = 0; c < 3; ++c) {
    for (int &x : v)
      x = (int)(next_rand() % 90u);
    cudaMemcpy(dv, v.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    int grid = (n + blocks[c] - 1) / blocks[c];
    if (c == 1)
      grid = grid / 2 > 0 ? grid / 2 : 1;
    dec2zero<<<grid, blocks[c]>>>(dv, n);
    cudaMemcpy(got.data(), dv, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n && i < grid * blocks[c]; ++i)
      ok &= got[i] == 0;
    printf("checksum dec2zero%d %016llx\n", c, sum_of(got.data(), n * 4));
  }
  cudaFree(dv);

  int w = 50, h = n / 50 > 0 ? n / 50 : 1;
  int *it;
  cudaMalloc((void **)&it, w * h * sizeof(int));
  escape_time<<<(w * h + 127) / 128, 128>>>(it, w, h, 200);
  std::vector<int> iters(w * h);
  cudaMemcpy(iters.data(), it, w * h * sizeof(int), cudaMemcpyDeviceToHost);
  for (int x : iters)
    ok &= x >= 1 && x <= 200;
  printf("checksum escape_time %016llx\n", sum_of(iters.data(), w * h * 4));
  cudaFree(it);

  std::vector<unsigned> start(n), peak(n);
  std::vector<int> steps(n);
  for (unsigned &s : start)
    s = 1u + next_rand() % 5000u;
  unsigned *ds, *dp;
  int *dk;
  cudaMalloc((void **)&ds, n * sizeof(unsigned));
  cudaMalloc((void **)&dp, n * sizeof(unsigned));
  cudaMalloc((void **)&dk, n * sizeof(int));
  cudaMemcpy(ds, start.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  collatz<<<(n + 95) / 96, 96>>>(ds, dk, dp, n);
  cudaMemcpy(steps.data(), dk, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(peak.data(), dp, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    ok &= peak[i] >= start[i];
  printf("checksum collatz %016llx %016llx\n", sum_of(steps.data(), n * 4),
         sum_of(peak.data(), n * 4));
  cudaFree(ds);
  cudaFree(dp);
  cudaFree(dk);

  std::vector<int> in(n), out(n);
  for (int &x : in)
    x = (int)next_rand() - (int)(1u << 30);
  int *di, *dout;
  cudaMalloc((void **)&di, n * sizeof(int));
  cudaMalloc((void **)&dout, n * sizeof(int));
  cudaMemcpy(di, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  digits<<<(n + 31) / 32, 32>>>(di, dout, n);
  cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("checksum digits %016llx\n", sum_of(out.data(), n * 4));
  cudaFree(di);
  cudaFree(dout);

  printf("refill_shapes: %s (n = %d)\n", ok ? "OK" : "MISMATCH", n);
  return ok ? 0 : 1;
}
