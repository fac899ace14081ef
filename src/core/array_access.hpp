// src/core/array_access.hpp: the library's own door into jitvec::Array's private members.
//
// Array befriends `jitvec::ArrayAccess` (include/jitvec/array.hpp); this is its one
// definition. The library uses it where the public API would cost what a hot path cannot pay:
// an Array that a call is about to assign (Ufunc::call's result) starts unset, and a call's new
// result shares the layout of a contiguous input of its shape instead of making its own.
#pragma once

#include "jitvec/array.hpp"

namespace jitvec {

class ArrayAccess {
 public:
  /// An Array with no shape, strides or data: only to be assigned (or moved) into.
  static Array unset() noexcept { return Array(Array::Unset{}); }

  /// The layout `a` shares with its copies (null for shape ()): two Arrays with the same one
  /// have the same shape and strides.
  static const detail::ArrayLayout* layout(const Array& a) noexcept { return a.layout_.get(); }

  /// Array::empty(dtype, like.shape(), memory, device, stream), sharing like's layout when its
  /// strides are exactly the C-contiguous ones Array::empty would give (no shape or strides
  /// allocated: a ufunc's result of the shape of a contiguous input). Defined in
  /// engine/array_memory.cpp.
  static Array empty_like(DType dtype, const Array& like, Memory memory, int device,
                          Stream stream);
};

}  // namespace jitvec
