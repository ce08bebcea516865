#include "cuda.h"

__global__ void empty() {}
