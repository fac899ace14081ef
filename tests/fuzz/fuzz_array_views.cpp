// tests/fuzz/fuzz_array_views.cpp: libFuzzer target for the argument handling of the view
// operations of jitvec::Array (slice, reshape, broadcast_to, transpose, permute).
//
// The input picks a dtype and a host buffer of 0..64 elements (allocated at exactly that size,
// so AddressSanitizer sees any read past it), wraps it as a 1-d array, then reads a sequence of
// view operations with their arguments (small values, edge values such as INT64_MIN, or raw
// 64-bit values). Each operation must either succeed with a view whose every element lies
// inside the buffer (checked from the shape and strides, in 128-bit arithmetic, and by copying
// small views element by element with to_host), with no negative dimension and a size that
// fits in int64; or throw jitvec::Error, leaving the previous view in use. Anything else is a
// finding: a crash, a sanitizer report (signed overflow included), another exception, a view
// reaching outside the buffer.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "jitvec/array.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Shape;
using i128 = __int128;

[[noreturn]] void finding(const std::string& what, const Array& view, const std::string& op) {
  std::fprintf(stderr, "after %s: %s\n  view: shape %s strides %s\n", op.c_str(), what.c_str(),
               jitvec::shape_to_string(view.shape()).c_str(),
               jitvec::shape_to_string(view.strides()).c_str());
  std::abort();
}

std::int64_t interesting(FuzzedDataProvider& in) {
  static constexpr std::int64_t edges[] = {
      std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min() + 1,
      std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max() - 1,
      std::int64_t{1} << 31, -(std::int64_t{1} << 31), std::int64_t{1} << 32,
      std::int64_t{1} << 62, -(std::int64_t{1} << 62), std::int64_t{3037000500}};
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 4: return edges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(edges) - 1)];
    case 5: return in.ConsumeIntegral<std::int64_t>();
    default: return in.ConsumeIntegralInRange<std::int64_t>(-10, 10);
  }
}

Shape read_shape(FuzzedDataProvider& in) {
  Shape shape(in.ConsumeIntegralInRange<std::size_t>(0, 6));
  for (auto& extent : shape) extent = interesting(in);
  return shape;
}

// Every element of `view` lies in [base, base + bytes), computed without overflow.
void check_view(const Array& view, const char* base, std::size_t bytes, const std::string& op) {
  const Shape& shape = view.shape();
  const auto& strides = view.strides();
  if (strides.size() != shape.size()) finding("strides and shape differ in length", view, op);
  i128 count = 1;
  bool empty = false;
  for (std::int64_t extent : shape) {
    if (extent < 0) finding("negative dimension", view, op);
    if (extent == 0) empty = true;
  }
  if (!empty) {
    for (std::int64_t extent : shape) {
      count *= extent;
      if (count > std::numeric_limits<std::int64_t>::max()) {
        finding("element count does not fit in int64", view, op);
      }
    }
  } else {
    count = 0;
  }
  if (view.size() != static_cast<std::int64_t>(count)) finding("size() is wrong", view, op);
  if (count == 0) return;
  const i128 item = static_cast<i128>(jitvec::dtype_size(view.dtype()));
  i128 low = 0, high = 0;  // element offsets from data(), least and greatest
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const i128 reach = static_cast<i128>(shape[d] - 1) * strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const i128 start = static_cast<const char*>(view.data()) - base;
  if (start + low * item < 0 || start + (high + 1) * item > static_cast<i128>(bytes)) {
    finding("an element lies outside the buffer", view, op);
  }
  if (count <= 4096) {
    const Array copy = view.to_host();  // reads every element: ASan checks each address
    if (copy.size() != view.size()) finding("to_host copied a different size", view, op);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  static constexpr DType dtypes[] = {DType::int8, DType::int16, DType::float32, DType::float64};
  const DType dtype = dtypes[in.ConsumeIntegralInRange<int>(0, 3)];
  const auto n = in.ConsumeIntegralInRange<std::int64_t>(0, 64);
  const std::size_t bytes = static_cast<std::size_t>(n) * jitvec::dtype_size(dtype);
  // Exactly `bytes` long (one byte when empty, for a non-null pointer), 8-byte aligned.
  char* buffer = static_cast<char*>(::operator new(bytes == 0 ? 1 : bytes, std::align_val_t{8}));
  const Array base = Array::wrap(buffer, dtype, Shape{n});
  Array view = base;
  std::string op = "wrap";
  check_view(view, buffer, bytes, op);
  for (int step = 0; step < 16 && in.remaining_bytes() > 0; ++step) {
    try {
      switch (in.ConsumeIntegralInRange<int>(0, 5)) {
        case 0:
          op = "transpose()";
          view = view.transpose();
          break;
        case 1: {
          std::vector<int> axes(in.ConsumeIntegralInRange<std::size_t>(0, 7));
          for (int& a : axes) a = in.ConsumeIntegralInRange<int>(-2, 7);
          op = "permute(...)";
          view = view.permute(axes);
          break;
        }
        case 2: {
          const int axis = in.ConsumeIntegralInRange<int>(-2, 7);
          const std::int64_t start = interesting(in), stop = interesting(in), by = interesting(in);
          op = "slice(" + std::to_string(axis) + ", " + std::to_string(start) + ", " +
               std::to_string(stop) + ", " + std::to_string(by) + ")";
          view = view.slice(axis, start, stop, by);
          break;
        }
        case 3: {
          const Shape shape = read_shape(in);
          op = "broadcast_to(" + jitvec::shape_to_string(shape) + ")";
          view = view.broadcast_to(shape);
          break;
        }
        case 4: {
          Shape shape = read_shape(in);
          op = "reshape(" + jitvec::shape_to_string(shape) + ")";
          view = view.reshape(std::move(shape));
          break;
        }
        default:
          op = "restart from the 1-d array";
          view = base;
          break;
      }
    } catch (const jitvec::Error&) {
      continue;  // refused: the previous view stays
    }
    check_view(view, buffer, bytes, op);
    (void)view.describe();
    (void)view.is_contiguous();
  }
  ::operator delete(buffer, std::align_val_t{8});
  return 0;
}
