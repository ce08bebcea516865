// template_mask.cu - the decision-mask kernel as a template over the stencil
// width and the element type, launched the ways template kernels are: with
// some template arguments deduced, with all of them spelled, and from a
// function template, all from outside the kernel's namespace.
//
// Exercises: branch splitting of template kernels (issue #4): the new
// kernels keep the template header and every launch keeps its template
// arguments (`--split-form literal|compact|efficient` forces a form; on
// sm_90 the planner declines, as for decision_mask).
//
// Usage: template_mask [log2_elements] [else_percent] [--bench N]
// ci-args: 12 30
// ci-args: 12 0
// ci-args: 12 100
#include <cuda_runtime.h>

#include "sample_util.h"

namespace masks {

template <int WIDTH, typename T>
__global__ void scale_or_smooth(const int *mask, const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T x = in[i];
  if (mask[i] == 0) {
    out[i] = x * T(0.5) + T(1);
  } else {
    T v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        v[k] = v[k] * T(0.75) + v[(k + 1) % WIDTH] * T(0.25) + x;
    T s = T(0);
    for (int k = 0; k < WIDTH; ++k)
      s += v[k] * T(k + 1);
    out[i] = s;
  }
}

} // namespace masks

template <int WIDTH, typename T>
static void reference(const int *mask, const T *in, T *out, int n) {
  for (int i = 0; i < n; ++i) {
    T x = in[i];
    if (mask[i] == 0) {
      out[i] = x * T(0.5) + T(1);
      continue;
    }
    T v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        v[k] = v[k] * T(0.75) + v[(k + 1) % WIDTH] * T(0.25) + x;
    T s = T(0);
    for (int k = 0; k < WIDTH; ++k)
      s += v[k] * T(k + 1);
    out[i] = s;
  }
}

// A launch inside a function template: every template argument spelled.
template <int WIDTH, typename T>
static void smooth_wide(const int *mask, const T *in, T *out, int n) {
  masks::scale_or_smooth<WIDTH, T><<<(n + 127) / 128, 128>>>(mask, in, out, n);
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int log2n = arg_int(args, 0, 22);
  int else_percent = arg_int(args, 1, 10);
  int n = 1 << log2n;
  std::vector<int> mask(n);
  std::vector<float> in(n), narrow(n), wide(n), ref(n);
  std::vector<double> in_d(n), wide_d(n), ref_d(n);
  for (int i = 0; i < n; ++i) {
    in[i] = rand_float(-1.0f, 1.0f);
    in_d[i] = in[i];
    mask[i] = (int)(next_rand() % 100) < else_percent;
  }
  int *d_mask;
  float *d_in, *d_out;
  double *d_in_d, *d_out_d;
  cudaMalloc((void **)&d_mask, n * sizeof(int));
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMalloc((void **)&d_in_d, n * sizeof(double));
  cudaMalloc((void **)&d_out_d, n * sizeof(double));
  cudaMemcpy(d_mask, mask.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in_d, in_d.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  int block = 256;
  int grid = (n + block - 1) / block;
  bool ok = true;

  // The element type deduced from the arguments.
  cudaMemset(d_out, 0xff, n * sizeof(float)); // poison: NaNs
  masks::scale_or_smooth<8><<<grid, block>>>(d_mask, d_in, d_out, n);
  check_cuda("template_mask");
  cudaMemcpy(narrow.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  reference<8>(mask.data(), in.data(), ref.data(), n);
  ok = ok &&
       compare_floats("template_mask <8, float>", narrow.data(), ref.data(), n);

  cudaMemset(d_out, 0xff, n * sizeof(float));
  smooth_wide<32>(d_mask, d_in, d_out, n);
  check_cuda("template_mask");
  cudaMemcpy(wide.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  reference<32>(mask.data(), in.data(), ref.data(), n);
  ok = ok &&
       compare_floats("template_mask <32, float>", wide.data(), ref.data(), n);

  // Every template argument spelled at the launch.
  cudaMemset(d_out_d, 0xff, n * sizeof(double));
  masks::scale_or_smooth<16, double>
      <<<grid, block>>>(d_mask, d_in_d, d_out_d, n);
  check_cuda("template_mask");
  cudaMemcpy(wide_d.data(), d_out_d, n * sizeof(double),
             cudaMemcpyDeviceToHost);
  reference<16>(mask.data(), in_d.data(), ref_d.data(), n);
  for (int i = 0; ok && i < n; ++i)
    if (!(fabs(wide_d[i] - ref_d[i]) <= 1e-9 * fmax(1.0, fabs(ref_d[i])))) {
      printf("template_mask <16, double>: MISMATCH at %d: got %.17g, "
             "expected %.17g\n",
             i, wide_d[i], ref_d[i]);
      ok = false;
    }
  if (!ok)
    return 1;
  printf("template_mask: OK (%d elements, %d%% else)\n", n, else_percent);
  print_checksum("narrow", checksum_bytes(narrow.data(), n * sizeof(float)));
  print_checksum("wide", checksum_bytes(wide.data(), n * sizeof(float)));
  print_checksum("wide_double",
                 checksum_bytes(wide_d.data(), n * sizeof(double)));
  bench(args.bench, [&]() {
    masks::scale_or_smooth<16, double>
        <<<grid, block>>>(d_mask, d_in_d, d_out_d, n);
  });
  cudaFree(d_mask);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_in_d);
  cudaFree(d_out_d);
  return 0;
}
