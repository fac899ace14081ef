#include "launch/iteration_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>

namespace jitvec::launch {
namespace {

// Largest |offset| an operand reaches: sum of |stride| * (size - 1).
std::uint64_t max_offset(const Shape& sizes, const Strides& strides) {
  std::uint64_t total = 0;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    total += static_cast<std::uint64_t>(std::llabs(strides[d])) *
             static_cast<std::uint64_t>(sizes[d] - 1);
  }
  return total;
}

}  // namespace

IterationSpace plan_iteration(const Shape& shape, std::vector<Strides> operand_strides,
                              std::uint32_t scalar_operands) {
  IterationSpace space;
  const std::size_t nops = operand_strides.size();
  space.numel = 1;
  for (std::int64_t s : shape) space.numel *= s;

  // 1. Keep only dimensions of size > 1 (a zero-size call keeps its zero dimension).
  std::vector<int> dims;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) dims.push_back(static_cast<int>(d));
  }
  // 2. Order by the output's |stride|, largest first; stable keeps C order among equals.
  const Strides& out = operand_strides.back();
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int a, int b) { return std::llabs(out[a]) > std::llabs(out[b]); });

  // 3. Merge an inner dimension into the current outer one when every operand allows it.
  space.strides.assign(nops, Strides{});
  for (int d : dims) {
    if (!space.sizes.empty()) {
      const std::int64_t outer_size = space.sizes.back();
      bool mergeable = true;
      for (std::size_t k = 0; k < nops && mergeable; ++k) {
        mergeable = space.strides[k].back() == operand_strides[k][d] * shape[d];
      }
      if (mergeable) {
        space.sizes.back() = outer_size * shape[d];
        for (std::size_t k = 0; k < nops; ++k) space.strides[k].back() = operand_strides[k][d];
        continue;
      }
    }
    space.sizes.push_back(shape[d]);
    for (std::size_t k = 0; k < nops; ++k) space.strides[k].push_back(operand_strides[k][d]);
  }
  if (space.sizes.empty()) {  // 0-d, or every dimension 1
    space.sizes.push_back(1);
    for (auto& s : space.strides) s.push_back(0);
  }
  if (space.ndim() > kMaxDims) {
    throw ArgumentError(fmt::format(
        "the call needs {} dimensions after merging the ones that can be merged; jitvec "
        "supports at most {}",
        space.ndim(), kMaxDims));
  }

  space.contiguous = space.ndim() == 1;
  for (std::size_t k = 0; k < nops; ++k) {
    const bool scalar = (scalar_operands >> k) & 1u;
    space.contiguous = space.contiguous && (scalar || space.strides[k][0] == 1);
  }
  constexpr std::uint64_t kLimit = std::numeric_limits<std::int32_t>::max();
  space.fits_32bit = static_cast<std::uint64_t>(space.numel) <= kLimit;
  for (const Strides& s : space.strides) {
    space.fits_32bit = space.fits_32bit && max_offset(space.sizes, s) <= kLimit;
  }
  return space;
}

}  // namespace jitvec::launch
