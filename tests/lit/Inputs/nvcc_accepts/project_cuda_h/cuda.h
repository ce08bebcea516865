// The project's own header named cuda.h: its helpers, not the CUDA driver API.
#ifndef PROJECT_CUDA_H
#define PROJECT_CUDA_H
void checkError(const char *what);
#endif
