// kernel-timer.cpp - an LD_PRELOAD library that times every kernel a CUDA
// program launches, the same way for every program, whoever wrote it.
//
// nvcc 13's <<<>>> stubs call the runtime's __cudaLaunchKernel (through
// __cudaGetKernel's handle); a program linked with `-cudart shared` reaches
// both through the dynamic linker, so this library sees each launch. It
// records a CUDA event before and after the launch on the launch's stream,
// waits for the second, and at exit prints one line per kernel:
//
//   kernel_ms NAME LAUNCHES TOTAL_MS
//
// to the file KERNEL_TIMER_OUT names (appended), else to stderr after a
// newline (a program's own output may end without one).
//
// Waiting after each launch serialises the program's kernels; the programs
// measured with it (scripts/bench-polybench-gpu) synchronise after theirs
// anyway. Run with CUDA_MODULE_LOADING=EAGER, or the first launch of each
// kernel includes loading its module.
//
// KERNEL_TIMER_REPEAT=N (timing runs only): after each launch, the same
// kernel runs N more times with the same arguments, each timed, and the exit
// adds one line per kernel, `kernel_steady_ms NAME SAMPLES MEDIAN_MS`: a
// steady-state time (warm clocks and caches), where a single launch's time
// also holds the GPU's clock ramp. The repeats change what a kernel that
// updates its own input computes: never with a run whose output is checked.
//
// Build: g++ -O2 -shared -fPIC -I/usr/local/cuda/include kernel-timer.cpp \
//            -o libkernel-timer.so -L/usr/local/cuda/lib64 -lcudart -ldl
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct KernelTotal {
  unsigned long Launches = 0;
  double Milliseconds = 0;
  std::vector<float> Repeats; ///< KERNEL_TIMER_REPEAT's samples.
};

struct Totals {
  std::mutex Lock;
  std::map<const void *, const void *> FunctionOfHandle;
  std::map<std::string, KernelTotal> ByName;
  ~Totals() {
    const char *Path = std::getenv("KERNEL_TIMER_OUT");
    FILE *Out = Path ? std::fopen(Path, "a") : nullptr;
    if (!Out) {
      Out = stderr;
      std::fputc('\n', Out);
    }
    for (const auto &Entry : ByName)
      std::fprintf(Out, "kernel_ms %s %lu %.6f\n", Entry.first.c_str(),
                   Entry.second.Launches, Entry.second.Milliseconds);
    for (auto &Entry : ByName) {
      std::vector<float> &R = Entry.second.Repeats;
      if (R.empty())
        continue;
      std::sort(R.begin(), R.end());
      std::fprintf(Out, "kernel_steady_ms %s %zu %.6f\n", Entry.first.c_str(),
                   R.size(), R[R.size() / 2]);
    }
    if (Out != stderr)
      std::fclose(Out);
  }
};

Totals &totals() {
  static Totals T;
  return T;
}

std::string nameOf(const void *Handle) {
  const void *Function = nullptr;
  {
    std::lock_guard<std::mutex> Guard(totals().Lock);
    auto It = totals().FunctionOfHandle.find(Handle);
    if (It != totals().FunctionOfHandle.end())
      Function = It->second;
  }
  const char *Name = nullptr;
  if (Function && cudaFuncGetName(&Name, Function) == cudaSuccess && Name)
    return Name;
  return "unknown";
}

} // namespace

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *Handle,
                                       const void *Function) {
  using Real = cudaError_t (*)(cudaKernel_t *, const void *);
  static Real RealGetKernel = (Real)dlsym(RTLD_NEXT, "__cudaGetKernel");
  cudaError_t Result = RealGetKernel(Handle, Function);
  if (Result == cudaSuccess && Handle) {
    std::lock_guard<std::mutex> Guard(totals().Lock);
    totals().FunctionOfHandle[(const void *)*Handle] = Function;
  }
  return Result;
}

extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t Kernel, dim3 Grid,
                                          dim3 Block, void **Args,
                                          size_t SharedBytes,
                                          cudaStream_t Stream) {
  using Real =
      cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static Real RealLaunch = (Real)dlsym(RTLD_NEXT, "__cudaLaunchKernel");
  static const int Repeat = [] {
    const char *N = std::getenv("KERNEL_TIMER_REPEAT");
    return N ? std::atoi(N) : 0;
  }();
  cudaEvent_t Begin, End;
  cudaEventCreate(&Begin);
  cudaEventCreate(&End);
  auto Timed = [&](cudaError_t &Result) {
    cudaEventRecord(Begin, Stream);
    Result = RealLaunch(Kernel, Grid, Block, Args, SharedBytes, Stream);
    cudaEventRecord(End, Stream);
    cudaEventSynchronize(End);
    float Milliseconds = 0;
    cudaEventElapsedTime(&Milliseconds, Begin, End);
    return Milliseconds;
  };
  cudaError_t Result = cudaSuccess;
  float Milliseconds = Timed(Result);
  std::vector<float> Repeats;
  for (int K = 0; K < Repeat && Result == cudaSuccess; ++K) {
    cudaError_t Again = cudaSuccess;
    Repeats.push_back(Timed(Again));
  }
  cudaEventDestroy(Begin);
  cudaEventDestroy(End);
  std::string Name = nameOf((const void *)Kernel);
  std::lock_guard<std::mutex> Guard(totals().Lock);
  KernelTotal &Total = totals().ByName[Name];
  ++Total.Launches;
  Total.Milliseconds += Milliseconds;
  Total.Repeats.insert(Total.Repeats.end(), Repeats.begin(), Repeats.end());
  return Result;
}
