#include "launch/strided_params.hpp"

#include <fmt/format.h>

#include <cstring>

namespace jitvec::launch {

std::size_t strided_params_size(IndexWidth width, int operands) {
  if (width == IndexWidth::bits32) return 4 * (2 + 3 * kMaxDims + operands * kMaxDims);
  return 8 * (2 + kMaxDims + operands * kMaxDims);
}

FastDivisor make_fast_divisor(std::uint32_t divisor) {
  std::uint32_t shift = 0;
  while (shift < 32 && (std::uint64_t{1} << shift) < divisor) ++shift;
  const std::uint64_t one = 1;
  const std::uint64_t magic = ((one << 32) * ((one << shift) - divisor)) / divisor + 1;
  return FastDivisor{static_cast<std::uint32_t>(magic), shift};
}

namespace {

template <class T> void put(unsigned char*& cursor, T value) {
  std::memcpy(cursor, &value, sizeof(T));
  cursor += sizeof(T);
}

}  // namespace

void fill_strided_params(const IterationSpace& space, IndexWidth width, StridedParamsBuffer& out) {
  out.size = fill_strided_params(space, width, out.bytes);
}

std::size_t fill_strided_params(const IterationSpace& space, IndexWidth width, unsigned char* dest,
                                const BlockLayout& layout) {
  const int ndim = space.ndim();
  const int nops = static_cast<int>(space.strides.size());
  std::memset(dest, 0, strided_params_size(width, nops));
  unsigned char* cursor = dest;
  // Dimension d of the block is dimension ndim-1-d of the space (innermost first), except that
  // layout.second and the space's dimension ndim-2 trade places.
  auto dim = [&](int d) {
    const int natural = ndim - 1 - d;
    if (layout.second < 0 || ndim < 2) return natural;
    if (d == 1) return layout.second;
    return natural == layout.second ? ndim - 2 : natural;
  };
  // The block's size of its dimension d.
  auto size_of = [&](int d) {
    return d == 0 ? space.sizes[dim(0)] / layout.vector : space.sizes[dim(d)];
  };
  const std::int64_t numel = space.numel / layout.vector;
  if (width == IndexWidth::bits32) {
    put<std::uint32_t>(cursor, static_cast<std::uint32_t>(numel));
    put<std::int32_t>(cursor, ndim);
    unsigned char* sizes = cursor;
    unsigned char* magic = sizes + 4 * kMaxDims;
    unsigned char* shift = magic + 4 * kMaxDims;
    unsigned char* strides = shift + 4 * kMaxDims;
    for (int d = 0; d < ndim; ++d) {
      const auto size = static_cast<std::uint32_t>(size_of(d));
      const FastDivisor div = make_fast_divisor(size == 0 ? 1 : size);
      std::memcpy(sizes + 4 * d, &size, 4);
      std::memcpy(magic + 4 * d, &div.magic, 4);
      std::memcpy(shift + 4 * d, &div.shift, 4);
      for (int k = 0; k < nops; ++k) {
        const auto stride = static_cast<std::int32_t>(space.strides[k][dim(d)]);
        std::memcpy(strides + 4 * (k * kMaxDims + d), &stride, 4);
      }
    }
  } else {
    put<std::int64_t>(cursor, numel);
    put<std::int64_t>(cursor, ndim);
    unsigned char* sizes = cursor;
    unsigned char* strides = sizes + 8 * kMaxDims;
    for (int d = 0; d < ndim; ++d) {
      const std::int64_t size = size_of(d);
      std::memcpy(sizes + 8 * d, &size, 8);
      for (int k = 0; k < nops; ++k) {
        std::memcpy(strides + 8 * (k * kMaxDims + d), &space.strides[k][dim(d)], 8);
      }
    }
  }
  return strided_params_size(width, nops);
}

std::string strided_params_declaration(const char* name, IndexWidth width, int operands) {
  if (width == IndexWidth::bits32) {
    return fmt::format(
        "struct {0} {{\n  unsigned numel;\n  int ndim;\n  unsigned sizes[{1}];\n"
        "  unsigned magic[{1}];\n  unsigned shift[{1}];\n  int strides[{2}][{1}];\n}};\n"
        "static_assert(sizeof({0}) == {3}, \"jitvec: strided parameter layout\");\n",
        name, kMaxDims, operands, strided_params_size(width, operands));
  }
  return fmt::format(
      "struct {0} {{\n  long long numel;\n  long long ndim;\n  long long sizes[{1}];\n"
      "  long long strides[{2}][{1}];\n}};\n"
      "static_assert(sizeof({0}) == {3}, \"jitvec: strided parameter layout\");\n",
      name, kMaxDims, operands, strided_params_size(width, operands));
}

}  // namespace jitvec::launch
