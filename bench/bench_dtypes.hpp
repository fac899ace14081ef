// bench/bench_dtypes.hpp: issue 10's dtype cases of jitvec_bench_gpu, each against the device
// copy of the bytes it moves, measured in the same run.
//
//   * dtype_gaussian_float16: gaussian_pdf over float16 (computed in float32, rounded to
//     float16, as NumPy does), 2^28 elements (2^20 with --quick), mean and sigma weak scalars,
//     into a preallocated out=; ideal 2 bytes read + 2 written an element. The contiguous
//     vector kernel loads and stores 16 bytes (8 halves) a thread.
//   * dtype_zz_complex64: z * conj(z) + c over complex64, c a weak std::complex<float> scalar,
//     2^27 elements (2^20 with --quick); ideal 8 bytes read + 8 written an element.
// The target is >= 0.95 of the copy. Outputs are poisoned (0xFF: NaN) before the checked call
// and checked against float64 references (bench/checks.hpp: whole up to 2^24 elements, sampled
// above), float16 within rtol 2^-10 (one float16 ulp and a float32 rounding), complex64 parts
// within 1e-6 relative to |z|^2 + |c|.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <jitvec/jitvec.hpp>

#include "gpu_ceilings.hpp"
#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

struct DtypeInputs {
  int device = 0;
  CUstream stream = nullptr;
  EventTimer* timer = nullptr;
  DeviceCopyCeiling* ceilings = nullptr;
  jitvec::Engine* engine = nullptr;  ///< the ufuncs of the cases are defined in it
  std::uint64_t seed = 0;
  bool quick = false;
};

/// Runs one case: calls body(record), turns an exception into the record's error, keeps the
/// record (GpuBench::run_case).
using DtypeCaseRunner = std::function<void(Record, const std::function<void(Record&)>&)>;

/// Runs both dtype cases through `run_case`; one failing case does not stop the other.
void run_dtype_cases(const DtypeInputs& inputs, const DtypeCaseRunner& run_case);

}  // namespace bench
