#ifndef FROM_COMPILE_DB
#error "FROM_COMPILE_DB must come from compile_commands.json"
#endif
#include "needs_macro_inc.h"
__global__ void k(float *a) { a[threadIdx.x] = VALUE; }
