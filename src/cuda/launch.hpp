// src/cuda/launch.hpp: starting a kernel, and how many of its blocks fit on a multiprocessor.
//
// launch() is on the path of every GPU ufunc call, so it is a bare cuLaunchKernel plus one
// comparison: no allocation, logging or formatting unless the launch fails, when it throws
// CudaError with the launch's geometry. Grids are 3-D (the launcher may fold large or N-d
// iteration spaces into y and z); blocks are 1-D.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "cuda/context.hpp"

namespace jitvec::cuda {

/// Queues `function` on `stream` with a grid of grid_x * grid_y * grid_z blocks of `block`
/// threads, `shared_bytes` of dynamic shared memory and the kernel arguments `params` (one
/// pointer to each argument's value, as cuLaunchKernel takes them). The context `function`
/// was loaded in must be current (see ContextGuard). `guard`, when given, is the guard that
/// made it current: if it only trusted the thread's memory (Trust::thread_cache) and the
/// driver refuses the launch for its context, the guard asks the driver and the launch is
/// made again, once.
void launch(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
            unsigned block, std::size_t shared_bytes, CUstream stream, void** params,
            ContextGuard* guard = nullptr);

/// launch(), with the arguments as one packed buffer of `bytes` (cuLaunchKernel's `extra`:
/// CU_LAUNCH_PARAM_BUFFER_POINTER) instead of one pointer per parameter: the driver copies
/// one block instead of walking the parameter list. The buffer must be laid out exactly as the
/// kernel's parameters (kernels/kernel_abi's image is: tests/unit/test_kernel_abi.cpp checks it
/// against the PTX).
void launch_buffer(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                   unsigned block, std::size_t shared_bytes, CUstream stream, const void* args,
                   std::size_t bytes, ContextGuard* guard = nullptr);

/// Whether launches pass their arguments as one buffer (launch_buffer): JITVEC_LAUNCH_PARAMS=
/// buffer in the environment, read once; by default they go one pointer per parameter. An
/// experiment switch for the H200 (bench/NOTES.md, "Session 5").
bool launch_with_buffer() noexcept;
/// What a JITVEC_LAUNCH_PARAMS value asks for: true for `buffer`, false for none, empty or
/// `pointers` (the default); any other value is warned about once, naming it, and means false.
bool launch_params_buffer(const char* value);

/// How many blocks of `block_size` threads (without dynamic shared memory) of `function` can
/// be resident on one multiprocessor at once; times DeviceInfo::sm_count, the largest grid
/// that runs in one wave. One driver query per call, not cached here: keep the result beside
/// the CUfunction it belongs to (a cache keyed by handle could outlive an unloaded module).
int max_active_blocks_per_sm(CUfunction function, int block_size);

}  // namespace jitvec::cuda
