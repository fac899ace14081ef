#include "jitvec/array.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
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

const Shape kNoDimensions;

void free_array_layout(const ArrayLayout* layout) noexcept { delete layout; }

bool is_contiguous(const Shape& shape, const Strides& strides) {
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && strides[d] != step) return false;
    step *= shape[d];
  }
  return true;
}

namespace {

// Whether `strides` are exactly contiguous_strides(shape).
bool has_contiguous_strides(const Shape& shape, const Strides& strides) {
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (strides[d] != step) return false;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return true;
}

}  // namespace

LayoutRef make_layout(Shape shape, Strides strides) {
  auto layout = std::make_unique<ArrayLayout>();
  layout->size = element_count(shape);
  layout->contiguous = is_contiguous(shape, strides);
  layout->c_strides = layout->contiguous && has_contiguous_strides(shape, strides);
  layout->shape = std::move(shape);
  layout->strides = std::move(strides);
  return LayoutRef(layout.release());
}

LayoutRef contiguous_layout(Shape shape) {
  auto layout = std::make_unique<ArrayLayout>();
  layout->size = element_count(shape);
  layout->strides = contiguous_strides(shape);  // may throw: the layout is still owned here
  layout->shape = std::move(shape);
  return LayoutRef(layout.release());
}

}  // namespace detail

using detail::check_shape;
using detail::contiguous_strides;
using detail::element_count;

std::string shape_to_string(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

// Shape (0), strides (1): one layout made at the first call, shared by every Array() since
// (it holds a reference of its own, so it is never freed).
Array::Array() : layout_([] {
  static const detail::LayoutRef empty_1d = detail::make_layout(Shape{0}, Strides{1});
  return empty_1d;
}()) {}

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
  Array a{Unset{}};
  a.data_ = data;
  a.dtype_ = dtype;
  a.layout_ = detail::make_layout(std::move(shape), std::move(strides));
  a.memory_ = memory;
  a.device_ = device;
  return a;
}

void Array::check_dtype(DType wanted) const {
  if (wanted != dtype_) {
    throw ArgumentError(fmt::format("array holds {} elements, not {}", dtype_name(dtype_),
                                    dtype_name(wanted)));
  }
}

Array Array::transpose() const {
  std::vector<int> axes(shape().size());
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(axes);
}

Array Array::permute(const std::vector<int>& axes) const {
  if (axes.size() != static_cast<std::size_t>(ndim())) {
    throw ArgumentError(fmt::format("permute: {} axes given for a {}-d array", axes.size(), ndim()));
  }
  std::vector<bool> seen(axes.size(), false);
  const Shape& old_shape = shape();
  const Strides& old_strides = strides();
  Shape shape(axes.size());
  Strides strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int a = axes[i];
    if (a < 0 || a >= ndim() || seen[a]) {
      throw ArgumentError(fmt::format("permute: axes ({}) are not a permutation of 0..{}",
                                      fmt::join(axes, ", "), ndim() - 1));
    }
    seen[a] = true;
    shape[i] = old_shape[a];
    strides[i] = old_strides[a];
  }
  Array v = *this;
  v.layout_ = detail::make_layout(std::move(shape), std::move(strides));
  return v;
}

Array Array::slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step) const {
  if (axis < 0 || axis >= ndim()) {
    throw ArgumentError(fmt::format("slice: axis {} out of range for a {}-d array", axis, ndim()));
  }
  if (step == 0) throw ArgumentError("slice: step must not be zero");
  const Shape& old_shape = shape();
  const Strides& old_strides = strides();
  // As Python does, so that -step is defined.
  if (step < -std::numeric_limits<std::int64_t>::max()) step = -std::numeric_limits<std::int64_t>::max();
  const std::int64_t n = old_shape[axis];
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
  std::int64_t offset = 0, stride = old_strides[axis];
  if ((count > 0 && (__builtin_mul_overflow(first, old_strides[axis], &offset) ||
                     __builtin_mul_overflow(offset, static_cast<std::int64_t>(dtype_size(dtype_)), &offset))) ||
      (count > 1 && __builtin_mul_overflow(old_strides[axis], step, &stride))) {
    throw ArgumentError(fmt::format("slice: offsets of slice({}, {}, {}, {}) overflow int64 on {}",
                                    axis, start, stop, step, describe()));
  }
  // In integers: a view with no elements (another axis of length 0) may start past its buffer, as
  // NumPy's may, and forming that address with pointer arithmetic would be undefined behaviour.
  if (count > 0) {
    v.data_ = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(data_) +
                                      static_cast<std::uintptr_t>(offset));
  }
  Shape shape = old_shape;
  Strides strides = old_strides;
  shape[axis] = count;
  strides[axis] = stride;  // a dimension of 0 or 1 keeps its stride: it is never stepped
  v.layout_ = detail::make_layout(std::move(shape), std::move(strides));
  return v;
}

Array Array::broadcast_to(const Shape& shape) const {
  check_shape(shape);
  const Shape& old_shape = this->shape();
  const Strides& old_strides = this->strides();
  if (shape.size() < old_shape.size()) {
    throw BroadcastError(fmt::format("cannot broadcast shape {} to {} (fewer dimensions)",
                                     shape_to_string(old_shape), shape_to_string(shape)));
  }
  Strides strides(shape.size(), 0);
  const std::size_t lead = shape.size() - old_shape.size();
  for (std::size_t d = 0; d < old_shape.size(); ++d) {
    if (old_shape[d] == shape[lead + d]) {
      strides[lead + d] = old_shape[d] == 1 ? 0 : old_strides[d];
    } else if (old_shape[d] != 1) {
      throw BroadcastError(fmt::format("cannot broadcast shape {} to {}", shape_to_string(old_shape),
                                       shape_to_string(shape)));
    }
  }
  Array v = *this;
  v.layout_ = detail::make_layout(shape, std::move(strides));
  return v;
}

Array Array::reshape(Shape shape) const {
  check_shape(shape);
  if (element_count(shape) != size()) {
    throw ArgumentError(fmt::format("cannot reshape an array of shape {} ({} elements) to {}",
                                    shape_to_string(this->shape()), size(), shape_to_string(shape)));
  }
  if (!is_contiguous()) {
    throw ArgumentError(fmt::format("reshape needs a contiguous array; this one has shape {} and "
                                    "strides {}", shape_to_string(this->shape()),
                                    shape_to_string(strides())));
  }
  Array v = *this;
  v.layout_ = detail::contiguous_layout(std::move(shape));
  return v;
}

std::string Array::describe() const {
  return fmt::format("{} array of shape {}, strides {}, in {}", dtype_name(dtype_),
                     shape_to_string(shape()), shape_to_string(strides()),
                     memory_ == Memory::host ? std::string("host memory")
                                             : fmt::format("memory of cuda:{}", device_));
}

}  // namespace jitvec
