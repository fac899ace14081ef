// bench/bench_graph.hpp: issue 13's captured call graphs in jitvec_bench_gpu: the host time of
// replaying 16 captured ufunc calls, against the same 16 calls made directly, in one run.
//
// The 16 calls chain on 1024-element float32 device arrays (call k reads call k-1's out=):
// even calls gaussian_pdf(prev, mean, sigma), odd calls add(prev, x), every one into its own
// preallocated out=, on a stream the benchmark creates (the null stream cannot be captured).
// Records (host time per ufunc call, median of batch averages; a replay counts as 16 calls; the
// replay's and the direct calls' batches alternate, so both see the same machine):
//   * graph_replay16: Graph::replay(); ratio = its time / the direct calls' (issue 13's target:
//     <= 1 us per call, and below the direct calls)
//   * graph_direct16: the same calls made one by one
// Both check all 16 outputs against float64 references (each stage from the previous stage's
// device result, so rounding does not compound), after poisoning them.
#pragma once

#include "bench_layouts.hpp"

namespace bench {

struct GraphInputs {
  int device = 0;
  const jitvec::Ufunc* add = nullptr;           ///< float32(float32, float32): a + b
  const jitvec::Ufunc* gaussian_pdf = nullptr;  ///< samples/gaussian_pdf.toml
  /// At least 1024 random float32 in [-3, 3), on the host and the same values on the device.
  const std::vector<float>* x_host = nullptr;
  const jitvec::Array* x_device = nullptr;
  double mean = 0.25, sigma = 1.5;
};

/// Runs the graph cases through `run_case` (CaseRunner: bench_layouts.hpp).
void run_graph_cases(const GraphInputs& inputs, const CaseRunner& run_case);

}  // namespace bench
