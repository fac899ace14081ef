// bench/bench_reduce.hpp: issue 11's reduce and accumulate cases of jitvec_bench_gpu, each
// against the device copy of the same bytes, measured in the same run.
//
//   * reduce_sum_all_f32: add.reduce of 2^28 float32 (2^20 with --quick), every axis, into a
//     preallocated 0-d out=. Ideal: the input read once. Target >= 0.90 of the copy.
//   * reduce_rows_f32 / reduce_cols_f32: add.reduce of a (2^14, 2^14) float32 matrix ((2^10,
//     2^10) with --quick) along axis 1 (each output a contiguous row: the rows kernel) and axis
//     0 (outputs adjacent in memory: the cols kernel), into a preallocated out=. Ideal: the
//     input read once plus the output written once. Targets >= 0.85.
//   * accumulate_f32: add.accumulate of 2^28 float32 along its contiguous axis into out=.
//     Ideal: read once, written once (8 bytes an element, as the peers count it), which is
//     what the one-pass tiles kernel moves (plus 16 bytes of status a 40 KB tile). Target >=
//     0.70.
//   * accumulate_axis0_f32: add.accumulate of a (2^14, 2^14) float32 matrix ((2^10, 2^10)
//     with --quick) along axis 0 (the lines kind). Ideal: read once, written once.
// The ufunc is `bench_sum` (identity 0, the user's source `a + b`). Outputs are poisoned
// (0xFF: NaN) before the checked call and checked against float64 sums of the same inputs
// (bench/checks.hpp), within the bound of jitvec's order (README, "Reductions"), in units of
// the sum of |x| (inputs are in [0, 1), so that is the sum itself).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

struct ReduceBenchInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  jitvec::Engine* engine = nullptr;  ///< the cases define their ufunc in it
  std::uint64_t seed = 0;
  bool quick = false;
};

using ReduceCaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs the five cases through `run_case`; one failing case does not stop the others.
void run_reduce_cases(const ReduceBenchInputs& inputs, const ReduceCaseRunner& run_case);

}  // namespace bench
