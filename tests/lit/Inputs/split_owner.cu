// Defines and launches `pick`, which other files may launch too.
__global__ void pick(const int *__restrict__ mask, float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] == 0)
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

static __global__ void local_pick(const int *__restrict__ mask,
                                  float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] == 0)
    out[i] = 3.0f;
  else
    out[i] = 4.0f;
}

void run_here(const int *m, float *o, int n) {
  pick<<<n / 256, 256>>>(m, o);
  local_pick<<<n / 256, 256>>>(m, o);
}
