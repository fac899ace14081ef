// bench/bench_fusion.hpp: issue 13's fused chains (Engine::fuse) in jitvec_bench_gpu, each
// against the device copy of the bytes it moves, measured in the same run, and the speed-up of
// the fused call over the same chain as three separate jitvec calls.
//
// Two chains of three float32 ufuncs with four distinct 2^28-element inputs (2^20 with
// --quick), into preallocated out= arrays (the separate calls' intermediates too):
//   * chain3: v = h(g(f(x, y), z), w), two-input stages (f = x*y + 1, g = t - z, h = u*w).
//     Ideal bytes fused: 4 inputs read + 1 output written = 20 bytes an element; separate:
//     3 calls x (2 read + 1 written) = 36 bytes an element, so the ideal speed-up is 1.8.
//   * chain3_wide: v = h(g(f(x, y, z, w), x, y, z), y, z, w), four-input stages (each stage
//     reads the inputs again when separate). Fused: still 20 bytes an element; separate:
//     3 x (4 read + 1 written) = 60, so the ideal speed-up is 3.0.
// Records, for each chain C:
//   * fusion_C_fused: the fused call; ratio against the copy of 20 bytes an element;
//   * fusion_C_separate: the three calls between one pair of events; ratio against the copy
//     of the bytes they move;
//   * fusion_C_speedup: separate time / fused time (kRatioSpeedup; issue 13's target >= 2.5),
//     with `ideal_speedup` in extra.
// bench/peers_fusion.py runs the same chains as three CuPy ElementwiseKernels (report.py:
// fused against CuPy, target >= 5). Outputs are poisoned (0xFF: NaN) before the checked call
// and checked against a float64 reference of the chain with float32 roundings between stages.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

struct FusionBenchInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  jitvec::Engine* engine = nullptr;  ///< the cases define their stage ufuncs and fusions in it
  std::uint64_t seed = 0;
  bool quick = false;
};

/// Runs one case: calls body(record), turns an exception into the record's error, keeps the
/// record (GpuBench::run_case).
using FusionCaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs both chains through `run_case`; one failing record does not stop the others.
void run_fusion_cases(const FusionBenchInputs& inputs, const FusionCaseRunner& run_case);

}  // namespace bench
