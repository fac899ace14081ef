// bench/bench_derivative.hpp: issue 30's derivative ufunc in jitvec_bench_gpu, against the
// device copy of the bytes it moves, measured in the same run.
//
//   * derivative_gaussian_pdf: engine.derivative("gaussian_pdf", "x") (forward mode: the
//     sample's template instantiated with jitvec::dual<float>) on 2^28 float32 elements (2^20
//     with --quick), mean and sigma scalars, into a preallocated out=. Ideal: 4 bytes read + 4
//     written an element. Target >= 0.95 of the copy of those bytes: the dual arithmetic is a
//     few more flops an element, which a memory-bound kernel hides.
// The output is poisoned (0xFF: NaN) before the checked call and checked against the float64
// closed form -(x - mean) / sigma^2 * pdf (bench/checks.hpp: whole up to 2^24 elements, sampled
// above).
#pragma once

#include "bench_multi_output.hpp"

namespace bench {

/// The same inputs and runner as the multi-output case (the engine has the samples loaded).
using DerivativeBenchInputs = MultiOutputBenchInputs;

/// Runs the derivative case through `run_case`.
void run_derivative_cases(const DerivativeBenchInputs& inputs, const MultiOutputCaseRunner& run_case);

}  // namespace bench
