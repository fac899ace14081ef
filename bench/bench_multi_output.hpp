// bench/bench_multi_output.hpp: issue 10's ufunc with several outputs in jitvec_bench_gpu,
// against the device copy of the bytes it moves, measured in the same run.
//
//   * multi_output_sincos_f32: a sincos-style ufunc, "(float32, float32)(float32)": one float32
//     input in [-pi, pi), its sine and cosine out, on 2^28 elements (2^20 with --quick), into two
//     preallocated out= arrays. Both outputs come from one kernel launch (one pass over x).
//     Ideal: 4 bytes read + 8 written an element. Target >= 0.95 of the copy of those bytes.
// Both outputs are poisoned (0xFF: NaN) before the checked call and checked against float64
// sin and cos (bench/checks.hpp: whole up to 2^24 elements, sampled above), within 2 ulp of 1
// plus the float32 rounding (CUDA's sinf/cosf: 2 ulp).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

struct MultiOutputBenchInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  jitvec::Engine* engine = nullptr;  ///< the case defines its ufunc in it
  std::uint64_t seed = 0;
  bool quick = false;
};

/// Runs one case: calls body(record), turns an exception into the record's error, keeps the
/// record (GpuBench::run_case).
using MultiOutputCaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs the multi-output case through `run_case`.
void run_multi_output_cases(const MultiOutputBenchInputs& inputs, const MultiOutputCaseRunner& run_case);

}  // namespace bench
