// src/engine/array_slots.hpp: up to N Arrays a call may make, constructed only when it makes them.
//
// A GPU call moves host inputs to the device, allocates outputs when no out= is given, and
// copies inputs that overlap out=; a cached call on device arrays with out= does none of these.
// `std::array<std::optional<Array>, 32>` cost such a call 3 KiB of zeroing on the stack per
// array of slots (GCC clears whole optionals), twice in the launcher and once for the overlap
// copies; ArraySlots leaves its storage untouched until an Array is placed in a slot, and
// destroys only what was placed. Not copyable or movable: pointers into it are handed around.
#pragma once

#include <cstdint>
#include <new>
#include <utility>

#include "jitvec/array.hpp"

namespace jitvec::engine {

template <int N> class ArraySlots {
  static_assert(N <= 64, "one bit per slot in a 64-bit mask");

 public:
  ArraySlots() noexcept {}
  ArraySlots(const ArraySlots&) = delete;
  ArraySlots& operator=(const ArraySlots&) = delete;
  ~ArraySlots() {
    // Only the slots in use, lowest first (scanning all N cost a call 600 instructions).
    for (std::uint64_t left = used_; left != 0; left &= left - 1) {
      slot(__builtin_ctzll(left))->~Array();
    }
  }

  bool has(int i) const noexcept { return (used_ >> i) & 1u; }
  /// Places `a` in slot i (replacing what was there) and returns it.
  Array& emplace(int i, Array a) {
    if (has(i)) {
      *slot(i) = std::move(a);
    } else {
      ::new (static_cast<void*>(&storage_[i])) Array(std::move(a));
      used_ |= std::uint64_t{1} << i;
    }
    return *slot(i);
  }
  /// Slot i, which must hold an Array.
  Array& operator[](int i) noexcept { return *slot(i); }

 private:
  Array* slot(int i) noexcept { return std::launder(reinterpret_cast<Array*>(&storage_[i])); }

  struct alignas(Array) Storage {
    unsigned char bytes[sizeof(Array)];
  };
  Storage storage_[N];
  std::uint64_t used_ = 0;
};

}  // namespace jitvec::engine
