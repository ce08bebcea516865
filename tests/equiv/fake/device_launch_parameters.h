/* cuda_cpu.h (force-included) provides what device_launch_parameters.h would */
