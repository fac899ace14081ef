// src/kernels/ufunc_at.hpp: the kernel of a two-input ufunc's at() (NumPy's ufunc.at).
//
// f.at(a, indices, b) sets a[indices[j]] = f(a[indices[j]], b[j]) for every j in order,
// unbuffered: an index that appears several times is updated several times, each update
// reading the previous one's result. The engine (engine/ufunc_at.hpp) sorts the update
// positions by index, stably, into segments: one segment per distinct index, its positions in
// call order. The kernel then gives one thread to each (segment, element of a's row): the
// thread reads the element once, applies the segment's updates in order through the ufunc's
// apply function (codegen/source_parts.hpp), converting to a's dtype after each as NumPy does,
// and writes it once. No two threads touch one element, so the result is that of NumPy's
// sequential loop, bit for bit, for any function and any dtype, on every target; the order of
// the segments does not matter. The host entry walks the same (segment, element) range, so
// the parallel target splits it by distinct index.
//
// The module (one per ufunc loop and pair of storage dtypes) is the prelude, the user's code,
// the apply function and one kernel:
//   jitvec_at        GPU: a grid-stride loop over segments x row elements
//   jitvec_at_host   host: void(const void* params, long long begin, long long end)
// both taking one AtParams, declared below and written into the text from the same constants.
#pragma once

#include <string>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

inline constexpr const char* kAtKernel = "jitvec_at";
inline constexpr const char* kAtHostSymbol = "jitvec_at_host";

/// The parameter block of both kernels; every field is 8 bytes (no padding anywhere).
struct AtParams {
  void* a;                        ///< a[0, 0, ...] (a's storage type)
  const void* b;                  ///< b[0, 0, ...] (b's storage type); null: the scalar below
  unsigned long long b_scalar;    ///< b's value in the loop's second type (low bytes)
  const long long* order;         ///< update positions, grouped by segment
  const long long* segment_start; ///< segments + 1 entries into `order`
  const long long* segment_row;   ///< the index of a's first axis each segment updates
  long long segments;
  long long row;                  ///< elements of one row of a (a.shape[1:])
  long long a_stride0, b_stride0; ///< strides along a's first axis and b's update axis
  long long ndim;                 ///< dimensions of a row (0 for a 1-d a)
  long long sizes[launch::kMaxDims];     ///< a row's shape, innermost first
  long long a_strides[launch::kMaxDims];
  long long b_strides[launch::kMaxDims];
};

/// `spec`: the ufunc's loop, inputs {a's storage dtype, b's storage dtype (a scalar b: the
/// loop's second type)}.
std::string generate_at_cuda_source(const codegen::UfuncSource& ufunc,
                                    const std::vector<const codegen::HelperSource*>& helpers,
                                    const codegen::LoopSpec& spec);
std::string generate_at_host_source(const codegen::UfuncSource& ufunc,
                                    const std::vector<const codegen::HelperSource*>& helpers,
                                    const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
