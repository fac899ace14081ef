// src/launch/strided_params.hpp: the parameter block of the strided (N-d) loops.
//
// A strided loop gets the iteration space as one by-value parameter block whose layout the
// host (here) and the generated code (strided_params_declaration()) must agree on, field for
// field. Dimensions are stored innermost first. Two layouts:
//   32-bit: u32 numel, i32 ndim, u32 sizes[D], u32 magic[D], u32 shift[D], i32 strides[N][D]
//   64-bit: i64 numel, i64 ndim, i64 sizes[D], i64 strides[N][D]
// (D = kMaxDims, N = operand count; every field is 4 or 8 bytes wide, so there is no padding).
// The 32-bit block carries "magic number" divisors so the GPU divides by a multiply-high and a
// shift instead of a hardware division. The generated source static_asserts its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "launch/iteration_space.hpp"

namespace jitvec::launch {

inline constexpr int kMaxOperands = 32;

enum class IndexWidth : std::uint8_t { bits32, bits64 };

/// Bytes of the parameter block for `operands` operands.
std::size_t strided_params_size(IndexWidth width, int operands);

/// Largest block: 64-bit, kMaxOperands operands.
inline constexpr std::size_t kMaxStridedParamsBytes =
    16 + 8 * kMaxDims + 8 * kMaxDims * kMaxOperands;

struct alignas(8) StridedParamsBuffer {
  unsigned char bytes[kMaxStridedParamsBytes];
  std::size_t size = 0;
};

/// How a kernel wants the space laid out in its block, when not dimension for dimension:
///   vector    the innermost size (and the element count) are given in vectors of this many
///             elements (the innermost size must be a multiple of it);
///   second    the space's dimension (outermost first) written as the block's dimension 1,
///             swapped with the one that would be there (a tiled kernel's second tile axis);
///             -1 keeps the order.
struct BlockLayout {
  int vector = 1;
  int second = -1;
};

/// Writes the block for `space` (whose strides are per operand, the output last) at `dest`
/// (strided_params_size() bytes, 8-byte aligned); returns its size.
std::size_t fill_strided_params(const IterationSpace& space, IndexWidth width, unsigned char* dest,
                                const BlockLayout& layout = {});
/// The same into `out`.
void fill_strided_params(const IterationSpace& space, IndexWidth width, StridedParamsBuffer& out);

/// The C++ declaration of the block for generated code: `struct <name> {...};`.
std::string strided_params_declaration(const char* name, IndexWidth width, int operands);

/// Magic-number division for 32-bit unsigned n < 2^31: q = (umulhi(n, magic) + n) >> shift.
struct FastDivisor {
  std::uint32_t magic;
  std::uint32_t shift;
};
FastDivisor make_fast_divisor(std::uint32_t divisor);

}  // namespace jitvec::launch
