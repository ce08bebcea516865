/* cuda_cpu.h (force-included) provides what cuda_runtime_api.h would */
