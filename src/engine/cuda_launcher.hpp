// src/engine/cuda_launcher.hpp: running a planned call on the GPU.
//
// run_on_gpu() picks the device (that of the device arrays, which must agree; else device 0),
// makes its primary context current, moves host inputs to it, allocates the output
// (stream-ordered) unless out= was given, plans the iteration space and launches one of the
// loop's four kernels:
//   contiguous and 16-byte aligned   -> jitvec_contig_vec, one tile of VEC*UNROLL*256 per block
//   contiguous, misaligned           -> jitvec_contig, one wave of blocks, grid-stride
//   strided, every offset < 2^31     -> jitvec_strided32
//   2-D with a transposed input      -> jitvec_tiled2d (through shared-memory tiles)
//   other 2-D, rows of >= 256        -> jitvec_rows2d (a row per block row, no division)
//   strided, larger                  -> jitvec_strided64
// With device inputs and output it returns without waiting; when the result goes to host
// memory it copies back and synchronizes the stream. Large contiguous host-to-host calls go
// through the overlapped pipeline of host_pipeline.hpp instead.
#pragma once

#include <cuda.h>

#include "engine/call_plan.hpp"

namespace jitvec::engine {

Array run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan);

class CudaLoop;
/// Launches the loop's contiguous kernel over n elements at the given device pointers (null for
/// scalar inputs): the vectorized one when every pointer is aligned for it.
void launch_contiguous(const CudaLoop& loop, const CallPlan& plan, void* const* inputs, void* out,
                       long long n, CUstream stream);

}  // namespace jitvec::engine
