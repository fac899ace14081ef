// src/core/array_layout.hpp: the shape arithmetic that Array's members share.
//
// Array's members are defined in two layers: the views and host-only parts in core
// (core/array.cpp), the members that allocate or copy memory in engine/array_memory.cpp, above
// the cuda layer (core includes nothing from cuda/). Both use these helpers.
#pragma once

#include <cstdint>

#include "jitvec/array.hpp"

namespace jitvec::detail {

/// C-order strides (in elements) of `shape`; a dimension of size 0 counts as 1.
Strides contiguous_strides(const Shape& shape);
/// The product of the dimensions.
std::int64_t element_count(const Shape& shape);
/// Throws ArgumentError for a negative dimension.
void check_shape(const Shape& shape);

}  // namespace jitvec::detail
