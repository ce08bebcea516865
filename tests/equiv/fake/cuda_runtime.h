/* cuda_cpu.h (force-included) provides what cuda_runtime.h would */
