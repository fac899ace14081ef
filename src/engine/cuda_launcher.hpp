// src/engine/cuda_launcher.hpp: running a planned call on the GPU.
//
// run_on_gpu() picks the device (that of the device arrays, which must agree; else device 0),
// makes its primary context current, moves host inputs to it, allocates the output
// (stream-ordered) unless out= was given, plans the iteration space, and then does three
// things: kernels::choose_kernel() (which kernel, which grid), kernels::KernelArgs (pack the
// arguments), one cuda::launch. With device inputs and output it returns without waiting;
// when the result goes to host memory it copies back and synchronizes the stream. Large
// contiguous host-to-host calls go through the overlapped pipeline of host_pipeline.hpp, which
// launches the flat kernels per chunk through launch_contiguous().
#pragma once

#include <cuda.h>

#include "engine/call_plan.hpp"

namespace jitvec::engine {

/// Runs the call; `results[j]` receives output j (plan.nout of them): out= when given.
void run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan, Array* results);
/// The same for a ufunc of one output, returning it.
Array run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan);

class CudaLoop;
/// Launches the loop's contiguous kernel over n elements at the given device pointers (null for
/// scalar inputs; one per output in `outs`): the vectorized one when every pointer is aligned
/// for it.
void launch_contiguous(const CudaLoop& loop, const CallPlan& plan, void* const* inputs,
                       void* const* outs, long long n, CUstream stream);

}  // namespace jitvec::engine
