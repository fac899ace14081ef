// src/core/strided_copy.hpp: host-side gathers of strided arrays into packed buffers.
//
// copy_strided_to_contiguous() packs a host view with any strides (zero and negative
// included) into C order; memory_extent() gives the span of bytes a view touches, so a strided
// device view can be staged through one copy. Used by Array's copies and by the launcher when
// it moves non-contiguous host arrays to the device.
#pragma once

#include <cstddef>

#include "jitvec/array.hpp"

namespace jitvec::detail {

/// Copies the elements of host view `src` in C order to `dst` (size() * itemsize bytes).
void copy_strided_to_contiguous(const Array& src, void* dst);

/// Scatters a packed C-order buffer into host view `dst` (the inverse).
void copy_contiguous_to_strided(const void* src, const Array& dst);

struct Extent {
  std::size_t offset_before;  ///< bytes from the lowest touched byte to element (0, ..., 0)
  std::size_t bytes;          ///< bytes from the lowest to one past the highest touched byte
};
Extent memory_extent(const Array& a);

}  // namespace jitvec::detail
