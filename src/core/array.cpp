#include "jitvec/array.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <numeric>

#include "core/array_layout.hpp"

namespace jitvec {
namespace detail {

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return strides;
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

// Every dimension non-negative, and the product of the non-zero ones (what size() and the
// contiguous strides multiply) fits in int64, as NumPy checks ("array is too big").
void check_shape(const Shape& shape) {
  std::int64_t product = 1;
  for (std::int64_t s : shape) {
    if (s < 0) throw ArgumentError(fmt::format("negative dimension in shape {}", shape_to_string(shape)));
    if (s > 0 && __builtin_mul_overflow(product, s, &product)) {
      throw ArgumentError(fmt::format("shape {} has more elements than an int64 counts",
                                      shape_to_string(shape)));
    }
  }
}

}  // namespace detail

using detail::check_shape;
using detail::contiguous_strides;
using detail::element_count;

std::string shape_to_string(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

Array::Array() : shape_{0}, strides_{1} {}

Array Array::wrap(void* data, DType dtype, Shape shape, Strides strides, Memory memory, int device) {
  check_shape(shape);
  if (strides.empty()) strides = contiguous_strides(shape);
  if (strides.size() != shape.size()) {
    throw ArgumentError(fmt::format("strides {} do not match shape {}: {} strides for {} dimensions",
                                    shape_to_string(strides), shape_to_string(shape),
                                    strides.size(), shape.size()));
  }
  if (!data && element_count(shape) > 0) {
    throw ArgumentError(fmt::format("null data pointer for a {} array of shape {}",
                                    dtype_name(dtype), shape_to_string(shape)));
  }
  if (reinterpret_cast<std::uintptr_t>(data) % dtype_alignment(dtype) != 0) {
    throw ArgumentError(fmt::format("data pointer {} is not aligned to {} bytes, as {} elements need",
                                    data, dtype_alignment(dtype), dtype_name(dtype)));
  }
  Array a;
  a.data_ = data;
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  a.strides_ = std::move(strides);
  a.memory_ = memory;
  a.device_ = device;
  return a;
}

std::int64_t Array::size() const noexcept { return element_count(shape_); }

bool Array::is_contiguous() const noexcept {
  std::int64_t step = 1;
  for (std::size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] == 0) return true;
    if (shape_[d] != 1 && strides_[d] != step) return false;
    step *= shape_[d];
  }
  return true;
}

void Array::check_dtype(DType wanted) const {
  if (wanted != dtype_) {
    throw ArgumentError(fmt::format("array holds {} elements, not {}", dtype_name(dtype_),
                                    dtype_name(wanted)));
  }
}

Array Array::transpose() const {
  std::vector<int> axes(shape_.size());
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(axes);
}

Array Array::permute(const std::vector<int>& axes) const {
  if (axes.size() != shape_.size()) {
    throw ArgumentError(fmt::format("permute: {} axes given for a {}-d array", axes.size(), ndim()));
  }
  std::vector<bool> seen(axes.size(), false);
  Array v = *this;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int a = axes[i];
    if (a < 0 || a >= ndim() || seen[a]) {
      throw ArgumentError(fmt::format("permute: axes ({}) are not a permutation of 0..{}",
                                      fmt::join(axes, ", "), ndim() - 1));
    }
    seen[a] = true;
    v.shape_[i] = shape_[a];
    v.strides_[i] = strides_[a];
  }
  return v;
}

Array Array::slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step) const {
  if (axis < 0 || axis >= ndim()) {
    throw ArgumentError(fmt::format("slice: axis {} out of range for a {}-d array", axis, ndim()));
  }
  if (step == 0) throw ArgumentError("slice: step must not be zero");
  // As Python does, so that -step is defined.
  if (step < -std::numeric_limits<std::int64_t>::max()) step = -std::numeric_limits<std::int64_t>::max();
  const std::int64_t n = shape_[axis];
  // Python's slice.indices().
  auto clamp = [&](std::int64_t i, std::int64_t lo, std::int64_t hi) {
    if (i < 0) i += n;
    return i < lo ? lo : (i > hi ? hi : i);
  };
  std::int64_t first, last;
  if (step > 0) {
    first = clamp(start, 0, n);
    last = clamp(stop, 0, n);
  } else {
    first = clamp(start, -1, n - 1);
    last = stop < -n ? -1 : clamp(stop, -1, n - 1);
  }
  // first and last lie in [-1, n]: their difference cannot overflow, step + difference can.
  const std::int64_t count = step > 0 ? (last > first ? (last - first - 1) / step + 1 : 0)
                                      : (first > last ? (first - last - 1) / -step + 1 : 0);
  Array v = *this;
  std::int64_t offset = 0, stride = strides_[axis];
  if ((count > 0 && (__builtin_mul_overflow(first, strides_[axis], &offset) ||
                     __builtin_mul_overflow(offset, static_cast<std::int64_t>(dtype_size(dtype_)), &offset))) ||
      (count > 1 && __builtin_mul_overflow(strides_[axis], step, &stride))) {
    throw ArgumentError(fmt::format("slice: offsets of slice({}, {}, {}, {}) overflow int64 on {}",
                                    axis, start, stop, step, describe()));
  }
  if (count > 0) v.data_ = static_cast<char*>(data_) + offset;
  v.shape_[axis] = count;
  v.strides_[axis] = stride;  // a dimension of 0 or 1 keeps its stride: it is never stepped
  return v;
}

Array Array::broadcast_to(const Shape& shape) const {
  check_shape(shape);
  if (shape.size() < shape_.size()) {
    throw BroadcastError(fmt::format("cannot broadcast shape {} to {} (fewer dimensions)",
                                     shape_to_string(shape_), shape_to_string(shape)));
  }
  Array v = *this;
  v.shape_ = shape;
  v.strides_.assign(shape.size(), 0);
  const std::size_t lead = shape.size() - shape_.size();
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] == shape[lead + d]) {
      v.strides_[lead + d] = shape_[d] == 1 ? 0 : strides_[d];
    } else if (shape_[d] != 1) {
      throw BroadcastError(fmt::format("cannot broadcast shape {} to {}", shape_to_string(shape_),
                                       shape_to_string(shape)));
    }
  }
  return v;
}

Array Array::reshape(Shape shape) const {
  check_shape(shape);
  if (element_count(shape) != size()) {
    throw ArgumentError(fmt::format("cannot reshape an array of shape {} ({} elements) to {}",
                                    shape_to_string(shape_), size(), shape_to_string(shape)));
  }
  if (!is_contiguous()) {
    throw ArgumentError(fmt::format("reshape needs a contiguous array; this one has shape {} and "
                                    "strides {}", shape_to_string(shape_), shape_to_string(strides_)));
  }
  Array v = *this;
  v.strides_ = contiguous_strides(shape);
  v.shape_ = std::move(shape);
  return v;
}

std::string Array::describe() const {
  return fmt::format("{} array of shape {}, strides {}, in {}", dtype_name(dtype_),
                     shape_to_string(shape_), shape_to_string(strides_),
                     memory_ == Memory::host ? std::string("host memory")
                                             : fmt::format("memory of cuda:{}", device_));
}

}  // namespace jitvec
