// bench/bench_layouts.hpp: the N-d layout cases of jitvec_bench_gpu (issue 14), each against
// the device copy of the bytes an ideal kernel would move, measured in the same run.
//
// Families (case names layout_<family>_<variant>, float32, about 2^28 outputs, 2^20 with
// --quick), every call into a preallocated out=:
//   * broadcast: 3-, 4- and 6-d broadcasts that no merge of axes turns into 2-d
//     ((B,1,L) + (1,C,1) etc.); ideal: the output once plus each input's distinct elements once.
//   * stepped: add(x[::s], 1) for s = 2, 3, 8 along the only axis of the 2^28-element input
//     (2^28/s outputs), and x2d[::2, :] of its (2^14, 2^14) view. For the last-axis steps the
//     ideal is physical: a read with step s moves min(4 s, 32) bytes an element (a 32-byte
//     sector holds 8 floats) plus 4 written; the record's ratio is against that, the logical
//     figure (4 read + 4 written an element) is in `extra` as ratio_logical.
//   * permute: 3-d and 4-d permutations of a C-ordered input, with the last axis kept and moved;
//     ideal 8 bytes an element.
//   * mix: gaussian_pdf(x.transpose(1,0,2), mean (1,1,L), sigma scalar, out= rows padded by 32
//     floats in a bigger buffer).
//   * smalllast: (N, d) + (d,) for d = 2, 3, 5, 7, N d about 2^28.
// Every input is a view of a buffer with a host copy, so one reference serves every case: the
// output element at a C-order index is recomputed in float64 from the host copies through the
// same shapes and strides (broadcast dimensions ignored). Outputs are poisoned before the
// checked call and checked whole up to 2^24 elements, sampled above (checks.hpp).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>
#include <vector>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

/// What the layout cases run on and with, all owned by the caller.
struct LayoutInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  const jitvec::Ufunc* add = nullptr;           ///< float32(float32, float32): a + b
  const jitvec::Ufunc* gaussian_pdf = nullptr;  ///< samples/gaussian_pdf.toml
  /// Random float32 in [-3, 3), at least 2^28 elements (2^20 with `quick`), on the host and
  /// the same values on the device.
  const std::vector<float>* x_host = nullptr;
  const jitvec::Array* x_device = nullptr;
  std::uint64_t seed = 0;
  bool quick = false;
};

/// Runs one case: calls body(record), turns an exception into the record's error, keeps the
/// record (GpuBench::run_case).
using CaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs every layout case through `run_case`; one failing case does not stop the others.
void run_layout_cases(const LayoutInputs& inputs, const CaseRunner& run_case);

}  // namespace bench
