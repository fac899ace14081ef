// src/core/array_access.hpp: the library's own door into jitvec::Array's private members.
//
// Array befriends `jitvec::ArrayAccess` (include/jitvec/array.hpp); this is its one
// definition. The library uses it where the public API would cost what a hot path cannot pay:
// an Array that a call is about to assign (Ufunc::call's result) starts without the shape (0)
// and strides (1) that Array() allocates.
#pragma once

#include "jitvec/array.hpp"

namespace jitvec {

class ArrayAccess {
 public:
  /// An Array with no shape, strides or data: only to be assigned (or moved) into.
  static Array unset() noexcept { return Array(Array::Unset{}); }
};

}  // namespace jitvec
