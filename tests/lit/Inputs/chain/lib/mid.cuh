#ifndef CHAIN_MID_CUH
#define CHAIN_MID_CUH
// Unchanged by the rewrite: it includes the header that is rewritten.
#include "k.cuh"
#endif
