#include "core/strided_copy.hpp"

#include <cstring>
#include <vector>

namespace jitvec::detail {
namespace {

// Visits every element of `a` in C order, calling f(byte offset from data(), index).
template <class F> void for_each_offset(const Array& a, F f) {
  const std::int64_t n = a.size();
  if (n == 0) return;
  const int nd = a.ndim();
  const std::ptrdiff_t item = static_cast<std::ptrdiff_t>(dtype_size(a.dtype()));
  std::vector<std::int64_t> coord(nd, 0);
  std::ptrdiff_t offset = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    f(offset, i);
    for (int d = nd - 1; d >= 0; --d) {
      if (++coord[d] < a.shape()[d]) {
        offset += a.strides()[d] * item;
        break;
      }
      offset -= (a.shape()[d] - 1) * a.strides()[d] * item;
      coord[d] = 0;
    }
  }
}

}  // namespace

void copy_strided_to_contiguous(const Array& src, void* dst) {
  const std::size_t item = dtype_size(src.dtype());
  if (src.is_contiguous()) {
    std::memcpy(dst, src.data(), static_cast<std::size_t>(src.size()) * item);
    return;
  }
  const char* base = static_cast<const char*>(src.data());
  char* out = static_cast<char*>(dst);
  for_each_offset(src, [&](std::ptrdiff_t off, std::int64_t i) {
    std::memcpy(out + i * item, base + off, item);
  });
}

void copy_contiguous_to_strided(const void* src, const Array& dst) {
  const std::size_t item = dtype_size(dst.dtype());
  if (dst.is_contiguous()) {
    std::memcpy(dst.data(), src, static_cast<std::size_t>(dst.size()) * item);
    return;
  }
  char* base = static_cast<char*>(dst.data());
  const char* in = static_cast<const char*>(src);
  for_each_offset(dst, [&](std::ptrdiff_t off, std::int64_t i) {
    std::memcpy(base + off, in + i * item, item);
  });
}

Extent memory_extent(const Array& a) {
  const std::size_t item = dtype_size(a.dtype());
  if (a.size() == 0) return Extent{0, 0};
  std::int64_t low = 0, high = 0;
  for (int d = 0; d < a.ndim(); ++d) {
    const std::int64_t reach = a.strides()[d] * (a.shape()[d] - 1);
    (reach < 0 ? low : high) += reach;
  }
  return Extent{static_cast<std::size_t>(-low) * item,
                static_cast<std::size_t>(high - low + 1) * item};
}

}  // namespace jitvec::detail
