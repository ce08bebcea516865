// forced (--force-transforms): meld of the outer if-else keeps the inner if-else of one side unmelded; rewriting the output again melds it (not idempotent).
__global__ void k(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i];
  float s = 0.0f;
  if (i % 2) {
    float t = v * 0.5f;
    if (v > 0.25f) {
      s += t * 1.5f;
    } else {
      s -= v;
    }
  } else {
    float t = v * 0.75f;
    s += t;
  }
  out[i] = s;
}
