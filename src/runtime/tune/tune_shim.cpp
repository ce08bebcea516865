// tune_shim.cpp - warpwise --tune's timing shim, preloaded into each tuning
// run of the user's program.
//
// warpwise writes this file (embedded in its binary) into a scratch folder and
// builds it against the toolkit's shared runtime (nvcc -cudart shared -shared,
// the runtime the program is linked with, so that the cudaLaunchKernel it
// replaces is the one the program calls): every kernel launch is timed with
// a pair of events on its stream and waited for, and the totals per kernel
// are written at exit to $WARPWISE_TUNE_OUT.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <map>
#include <string>

namespace {
struct Total {
  double Ms = 0;
  long Launches = 0;
};
std::map<std::string, Total> *Totals = new std::map<std::string, Total>;

// CUDA 13's launch stubs pass a cudaKernel_t (a CUkernel); its name comes
// from the driver. Older stubs pass the host function.
void record(const void *Func, bool IsKernel, float Ms) {
  const char *Name = nullptr;
  if (IsKernel) {
    using GetName = int (*)(const char **, const void *);
    static GetName Get = [] {
      void *Driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (!Driver)
        Driver = dlopen("libcuda.so.1", RTLD_NOW);
      return Driver ? (GetName)dlsym(Driver, "cuKernelGetName") : nullptr;
    }();
    if (!Get || Get(&Name, Func) != 0)
      Name = nullptr;
  } else if (cudaFuncGetName(&Name, Func) != cudaSuccess) {
    Name = nullptr;
  }
  // A name only when it reads as one; otherwise the order of first launch.
  auto Printable = [](const char *N) {
    if (!N || !*N)
      return false;
    for (int I = 0; N[I]; ++I)
      if (I > 4096 || N[I] < 0x21 || N[I] > 0x7e)
        return false;
    return true;
  };
  if (!Printable(Name) && cudaFuncGetName(&Name, Func) != cudaSuccess)
    Name = nullptr;
  static std::map<const void *, std::string> *Unnamed =
      new std::map<const void *, std::string>;
  std::string Fallback;
  if (!Printable(Name)) {
    auto It = Unnamed->find(Func);
    if (It == Unnamed->end())
      It = Unnamed
               ->emplace(Func, "kernel#" + std::to_string(Unnamed->size() + 1))
               .first;
    Fallback = It->second;
    Name = Fallback.c_str();
  }
  Total &T = (*Totals)[Name];
  T.Ms += Ms;
  ++T.Launches;
}

struct Timer {
  cudaEvent_t Start, Stop;
  cudaStream_t Stream;
  explicit Timer(cudaStream_t S) : Stream(S) {
    cudaEventCreate(&Start);
    cudaEventCreate(&Stop);
    cudaEventRecord(Start, Stream);
  }
  float stop() {
    cudaEventRecord(Stop, Stream);
    cudaEventSynchronize(Stop);
    float Ms = 0;
    cudaEventElapsedTime(&Ms, Start, Stop);
    cudaEventDestroy(Start);
    cudaEventDestroy(Stop);
    return Ms;
  }
};

__attribute__((destructor)) void dump() {
  const char *Out = std::getenv("WARPWISE_TUNE_OUT");
  if (!Out)
    return;
  if (FILE *F = std::fopen(Out, "w")) {
    for (auto &[Name, T] : *Totals)
      std::fprintf(F, "%s %.6f %ld\n", Name.c_str(), T.Ms, T.Launches);
    std::fclose(F);
  }
}
} // namespace

extern "C" cudaError_t cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block,
                                        void **Args, size_t Shared,
                                        cudaStream_t Stream) {
  using Fn =
      cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn Real = (Fn)dlsym(RTLD_NEXT, "cudaLaunchKernel");
  Timer T(Stream);
  cudaError_t R = Real(Func, Grid, Block, Args, Shared, Stream);
  record(Func, false, T.stop());
  return R;
}

extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *Config,
                                           const void *Func, void **Args) {
  using Fn = cudaError_t (*)(const cudaLaunchConfig_t *, const void *, void **);
  static Fn Real = (Fn)dlsym(RTLD_NEXT, "cudaLaunchKernelExC");
  Timer T(Config->stream);
  cudaError_t R = Real(Config, Func, Args);
  record(Func, false, T.stop());
  return R;
}

// What nvcc 13's launch stubs call.
#define WARPWISE_STUB(NAME)                                                    \
  extern "C" cudaError_t NAME(cudaKernel_t Kernel, dim3 Grid, dim3 Block,      \
                              void **Args, size_t Shared,                      \
                              cudaStream_t Stream) {                           \
    using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t,      \
                               cudaStream_t);                                  \
    static Fn Real = (Fn)dlsym(RTLD_NEXT, #NAME);                              \
    Timer T(Stream);                                                           \
    cudaError_t R = Real(Kernel, Grid, Block, Args, Shared, Stream);           \
    record((const void *)Kernel, true, T.stop());                              \
    return R;                                                                  \
  }
WARPWISE_STUB(__cudaLaunchKernel)
WARPWISE_STUB(__cudaLaunchKernel_ptsz)
