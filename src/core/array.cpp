#include "jitvec/array.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "core/strided_copy.hpp"
#include "cuda/context.hpp"
#include "cuda/memory.hpp"

namespace jitvec {
namespace {

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

void check_shape(const Shape& shape) {
  for (std::int64_t s : shape) {
    if (s < 0) throw ArgumentError(fmt::format("negative dimension in shape {}", shape_to_string(shape)));
  }
}

// Host allocations are 64-byte aligned so vectorized loops and copies start on cache lines.
std::shared_ptr<void> allocate_host(std::size_t bytes) {
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!p) throw std::bad_alloc();
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

// Small blocks are recycled per stream (cuda/block_cache.hpp): a steady stream of small
// temporaries costs no driver call. The deleter frees on the allocation's stream.
std::shared_ptr<void> allocate_device(std::size_t bytes, int device, Stream stream) {
  CUstream_st* s = stream.handle();
  void* p = cuda::alloc_recycled(device, bytes, s);
  return std::shared_ptr<void>(p, [device, bytes, s](void* q) {
    if (!q) return;
    cuda::free_recycled(device, q, bytes, s);
  });
}

}  // namespace

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
  if (reinterpret_cast<std::uintptr_t>(data) % dtype_size(dtype) != 0) {
    throw ArgumentError(fmt::format("data pointer {} is not aligned to {} bytes, as {} elements need",
                                    data, dtype_size(dtype), dtype_name(dtype)));
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

Array Array::empty(DType dtype, Shape shape, Memory memory, int device, Stream stream) {
  check_shape(shape);
  const std::size_t bytes = static_cast<std::size_t>(element_count(shape)) * dtype_size(dtype);
  Array a;
  a.owner_ = memory == Memory::host ? allocate_host(bytes)
             : bytes == 0            ? std::shared_ptr<void>()
                                     : allocate_device(bytes, device, stream);
  a.data_ = a.owner_.get();
  a.dtype_ = dtype;
  a.strides_ = contiguous_strides(shape);
  a.shape_ = std::move(shape);
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
  std::int64_t count = step > 0 ? (last - first + step - 1) / step : (first - last - step - 1) / -step;
  if (count < 0) count = 0;
  Array v = *this;
  if (count > 0) {
    v.data_ = static_cast<char*>(data_) +
              static_cast<std::ptrdiff_t>(first * strides_[axis]) * static_cast<std::ptrdiff_t>(dtype_size(dtype_));
  }
  v.shape_[axis] = count;
  v.strides_[axis] = strides_[axis] * step;
  return v;
}

Array Array::broadcast_to(const Shape& shape) const {
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

Array Array::to_host(Stream stream) const {
  Array result = Array::empty(dtype_, shape_, Memory::host);
  if (size() == 0) return result;
  if (memory_ == Memory::host) {
    detail::copy_strided_to_contiguous(*this, result.data());
    return result;
  }
  cuda::ContextGuard guard(device_);
  const detail::Extent extent = detail::memory_extent(*this);
  if (is_contiguous()) {
    cuda::copy_device_to_host(result.data(), data_, extent.bytes, stream.handle());
    cuda::synchronize(stream.handle());
    return result;
  }
  // Strided device view: bring the bytes it spans over, then gather on the host.
  std::vector<unsigned char> staging(extent.bytes);
  cuda::copy_device_to_host(staging.data(), static_cast<const char*>(data_) - extent.offset_before,
                            extent.bytes, stream.handle());
  cuda::synchronize(stream.handle());
  Array staged = *this;
  staged.memory_ = Memory::host;
  staged.owner_.reset();
  staged.data_ = staging.data() + extent.offset_before;
  detail::copy_strided_to_contiguous(staged, result.data());
  return result;
}

Array Array::to_device(int device, Stream stream) const {
  Array result = Array::empty(dtype_, shape_, Memory::device, device, stream);
  if (size() == 0) return result;
  cuda::ContextGuard guard(device);
  const std::size_t bytes = static_cast<std::size_t>(size()) * dtype_size(dtype_);
  if (memory_ == Memory::device) {
    if (!is_contiguous()) return to_host(stream).to_device(device, stream);
    cuda::copy_device_to_device(result.data(), data_, bytes, stream.handle());
    return result;
  }
  if (is_contiguous()) {
    cuda::copy_host_to_device(result.data(), data_, bytes, stream.handle());
    cuda::synchronize(stream.handle());  // the caller may free its host memory right after
    return result;
  }
  std::vector<unsigned char> packed(bytes);
  detail::copy_strided_to_contiguous(*this, packed.data());
  cuda::copy_host_to_device(result.data(), packed.data(), bytes, stream.handle());
  cuda::synchronize(stream.handle());
  return result;
}

std::string Array::describe() const {
  return fmt::format("{} array of shape {}, strides {}, in {}", dtype_name(dtype_),
                     shape_to_string(shape_), shape_to_string(strides_),
                     memory_ == Memory::host ? std::string("host memory")
                                             : fmt::format("memory of cuda:{}", device_));
}

}  // namespace jitvec
