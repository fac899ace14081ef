// src/launch/iteration_space.hpp: the smallest loop nest that visits every output element.
//
// Given the broadcast shape and each array operand's strides in it (inputs first, the output
// last), plan_iteration() produces the iteration space the kernels walk:
//   1. size-1 dimensions are dropped (their strides never matter);
//   2. dimensions are ordered by the output's strides, largest first, so that the innermost
//      loop walks the output's memory in order whatever its layout;
//   3. adjacent dimensions merge when every operand's strides allow it (stride[outer] ==
//      stride[inner] * size[inner]), so a contiguous N-d call becomes one flat loop.
// It also says whether every element offset fits 32-bit indexing (faster on the GPU) and
// whether every operand is a plain contiguous run (the vectorized fast path). Shared by every
// target: the CPU loops walk the same space.
#pragma once

#include <cstdint>
#include <vector>

#include "jitvec/array.hpp"

namespace jitvec::launch {

/// Most dimensions an iteration space may keep after coalescing: arrays may have any number
/// of dimensions, but one whose dimensions cannot merge down to this many is rejected with a
/// clear error. It sizes the strided kernels' parameter block.
inline constexpr int kMaxDims = 16;

struct IterationSpace {
  /// Sizes, outermost first. Never empty when numel > 0: a 0-d call has sizes {1}.
  Shape sizes;
  /// strides[operand][dim], in elements, matching `sizes`.
  std::vector<Strides> strides;
  std::int64_t numel = 0;
  /// One dimension and every operand's stride is 1.
  bool contiguous = false;
  /// numel and every operand's largest offset fit in a signed 32-bit integer.
  bool fits_32bit = false;

  int ndim() const { return static_cast<int>(sizes.size()); }
};

/// `operand_strides[k]` are operand k's strides in `shape` (0 where it is broadcast); the last
/// operand is the output. Operands whose bit is set in `scalar_operands` are scalars: their
/// strides are all 0 and they do not count against contiguity.
IterationSpace plan_iteration(const Shape& shape, std::vector<Strides> operand_strides,
                              std::uint32_t scalar_operands = 0);

}  // namespace jitvec::launch
