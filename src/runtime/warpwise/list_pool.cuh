//===- list_pool.cuh - Pools for the compact split's thread lists -*- CUDA -*-//
//
// Part of warpwise's run-time support (runtime.cuh); rewritten code reaches
// it through the API names that runtime.cuh declares.
//
// The compact split form allocates its list of heavy threads in the launch's
// stream at every launch and frees it after the heavy kernel. The default
// pool returns its memory at every synchronization, and mapping the list anew
// cost about 20 us per launch on an H100, so the lists come from one pool per
// device that keeps its memory reserved between launches.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_LIST_POOL_CUH
#define WARPWISE_RUNTIME_LIST_POOL_CUH

#include <cuda_runtime.h>

namespace ww_v1 {

/// The list pool of \p device, created with the first call (a function-local
/// static, so creation is thread-safe) for every device there is; 0 for a
/// device beyond the first 64 or one without pools, where the caller
/// allocates with cudaMallocAsync instead.
static inline cudaMemPool_t list_pool(int device) {
  struct Pools {
    cudaMemPool_t pool[64];
    int count;
    Pools() : count(0) {
      if (cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
      if (count > 64)
        count = 64;
      for (int d = 0; d < count; ++d) {
        cudaMemPoolProps props = cudaMemPoolProps();
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        pool[d] = 0;
        if (cudaMemPoolCreate(&pool[d], &props) != cudaSuccess) {
          pool[d] = 0;
          continue;
        }
        unsigned long long keep = ~0ull;
        cudaMemPoolSetAttribute(pool[d], cudaMemPoolAttrReleaseThreshold,
                                &keep);
      }
    }
  };
  static Pools pools;
  return device >= 0 && device < pools.count ? pools.pool[device] : 0;
}

} // namespace ww_v1

#endif
