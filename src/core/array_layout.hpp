// src/core/array_layout.hpp: the shape arithmetic that Array's members share.
//
// Array's members are defined in two layers: the views and host-only parts in core
// (core/array.cpp), the members that allocate or copy memory in engine/array_memory.cpp, above
// the cuda layer (core includes nothing from cuda/). Both use these helpers, and both make
// layouts (shape and strides, shared between Arrays) only through make_layout and
// contiguous_layout, which derive the element count and contiguity.
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
/// Whether `strides` walk `shape` in C order without gaps (size-1 dimensions' strides aside).
bool is_contiguous(const Shape& shape, const Strides& strides);

/// A new layout (jitvec/array.hpp: ArrayLayout) of a checked shape and its strides, with the
/// element count and contiguity computed once.
LayoutRef make_layout(Shape shape, Strides strides);
/// A new C-contiguous layout of a checked shape.
LayoutRef contiguous_layout(Shape shape);

}  // namespace jitvec::detail
