// Found only through the target's include directories.
#pragma once
#ifndef WW_SCALE
#error "WW_SCALE comes from target_compile_definitions"
#endif
inline __device__ float scaled(float X) { return X * WW_SCALE; }
