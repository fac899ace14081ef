// bench/bench_gufunc.hpp: issue 11's outer and generalized-ufunc cases of jitvec_bench_gpu, each
// against the device copy of the bytes it moves, measured in the same run.
//
//   * gufunc_outer_f32: multiply.outer(a, b) of two 2^14-element float32 vectors (2^10 with
//     --quick) into a preallocated (2^14, 2^14) out=: the ordinary map call with `a` viewed at
//     stride 0 over b's axis. Write-bound: ideal 4 bytes written an output plus the two inputs
//     once. Target >= 0.90 of the copy.
//   * gufunc_dot_n16: the gufunc dot (n),(n)->() with n = 16 on 2^24 rows (2^16 with --quick),
//     float32 C-ordered (rows, 16) inputs into a preallocated (rows,) out=: one thread a row,
//     the user's loop over 16 elements of each. Ideal: both inputs read once plus the output
//     written once (the target, >= 0.85 of the copy, counts the bytes read; the write is 1/32
//     of them).
// Outputs are poisoned (0xFF: NaN) before the checked call and checked against float64
// references (bench/checks.hpp: whole up to 2^24 elements, sampled above): the outer exactly
// (a float32 product rounded once is within half an ulp), the dot within 1e-5 relative to the
// sum of |a_i b_i| (16 float32 roundings).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

struct GufuncBenchInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  jitvec::Engine* engine = nullptr;  ///< the cases define their ufunc and gufunc in it
  std::uint64_t seed = 0;
  bool quick = false;
};

/// Runs one case: calls body(record), turns an exception into the record's error, keeps the
/// record (GpuBench::run_case).
using GufuncCaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs both cases through `run_case`; one failing case does not stop the other.
void run_gufunc_cases(const GufuncBenchInputs& inputs, const GufuncCaseRunner& run_case);

}  // namespace bench
