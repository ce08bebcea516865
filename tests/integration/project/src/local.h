// local.h - beside main.cu, included with quotes.
#pragma once
__device__ inline float ww_bias(int i) { return 0.5f * (i & 3); }
