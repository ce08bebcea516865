/* cuda_cpu.h (force-included) provides what cuda.h would */
