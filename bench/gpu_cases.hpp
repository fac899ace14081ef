// bench/gpu_cases.hpp: what every GPU benchmark case does around its timing, shared by
// bench_gpu.cpp and bench_layouts.cpp.
//
// poison() fills an output with 0xFF bytes before the checked call (NaN for floats, -1 for
// integers), so an element the kernel skips cannot pass the check; note_check() writes a
// check's verdict and worst errors into the case's record (an output that does not match is
// the record's error).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <jitvec/jitvec.hpp>

#include "checks.hpp"
#include "cuda/driver.hpp"
#include "results.hpp"

namespace bench {

/// Fills a device array's memory with 0xFF bytes: NaN for floats, -1 for integers. The array
/// must be contiguous (poison the buffer a strided view lies in).
inline void poison(const jitvec::Array& device_array, CUstream stream) {
  const std::size_t bytes =
      static_cast<std::size_t>(device_array.size()) * jitvec::dtype_size(device_array.dtype());
  jitvec::cuda::check(jitvec::cuda::driver().memsetD8Async(
                          reinterpret_cast<CUdeviceptr>(device_array.data()), 0xFF, bytes, stream),
                      "cuMemsetD8Async");
}

inline void note_check(Record& record, const Check& check) {
  record.verified = check.passed();
  record.extra.emplace_back("checked_elements", static_cast<double>(check.checked));
  record.extra.emplace_back("max_abs_error", check.max_abs_error);
  record.extra.emplace_back("max_rel_error", check.max_rel_error);
  if (!check.passed()) record.error = check.describe();
}

}  // namespace bench
