#include "engine/type_resolution.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace jitvec::engine {
namespace {

template <class T> bool int_in_range(std::int64_t v) {
  return v >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
         (v < 0 || static_cast<std::uint64_t>(v) <=
                       static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
}
template <class T> bool uint_in_range(std::uint64_t v) {
  return v <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

// Whether an integer survives conversion to the floating type F exactly. The way back to the
// integer is taken only when the rounded value is in the integer's range (2^63 or 2^64 are
// not: converting them back would be undefined).
template <class F> bool int_exact_in(std::int64_t v) {
  const F f = static_cast<F>(v);
  return f >= F(-0x1p63) && f < F(0x1p63) && static_cast<std::int64_t>(f) == v;
}
template <class F> bool uint_exact_in(std::uint64_t v) {
  const F f = static_cast<F>(v);
  return f < F(0x1p64) && static_cast<std::uint64_t>(f) == v;
}

// The smallest magnitude that rounds to infinity in float32 under round-to-nearest-even:
// FLT_MAX plus half its last place, 2^128 - 2^103 (the tie goes to infinity, since FLT_MAX's
// significand is odd). Everything below it rounds to at most FLT_MAX, e.g. 3.4028235e38 (how
// FLT_MAX prints) and 3.40282356e38.
constexpr double kFloat32OverflowThreshold = 0x1.ffffffp+127;

bool int_fits(std::int64_t v, DType to) {
  switch (to) {
    case DType::int8: return int_in_range<std::int8_t>(v);
    case DType::int16: return int_in_range<std::int16_t>(v);
    case DType::int32: return int_in_range<std::int32_t>(v);
    case DType::int64: return true;
    case DType::uint8: return int_in_range<std::uint8_t>(v);
    case DType::uint16: return int_in_range<std::uint16_t>(v);
    case DType::uint32: return int_in_range<std::uint32_t>(v);
    case DType::uint64: return v >= 0;
    default: return false;
  }
}

bool uint_fits(std::uint64_t v, DType to) {
  switch (to) {
    case DType::int8: return uint_in_range<std::int8_t>(v);
    case DType::int16: return uint_in_range<std::int16_t>(v);
    case DType::int32: return uint_in_range<std::int32_t>(v);
    case DType::int64: return uint_in_range<std::int64_t>(v);
    case DType::uint8: return uint_in_range<std::uint8_t>(v);
    case DType::uint16: return uint_in_range<std::uint16_t>(v);
    case DType::uint32: return uint_in_range<std::uint32_t>(v);
    case DType::uint64: return true;
    default: return false;
  }
}

// Whether an integer survives conversion to a 2-byte float type exactly (every integer that
// float16 or bfloat16 holds is exact in double, so the double is compared).
bool int_exact_in_small_float(double v, DType to) {
  const double back = to == DType::float16
                          ? detail::half_bits_to_float(detail::double_to_half_bits(v))
                          : detail::bfloat16_bits_to_float(detail::double_to_bfloat16_bits(v));
  return back == v;
}

// Whether a finite double stays finite in float type `to` (it may round, not overflow).
bool float_fits(double v, DType to) {
  if (to == DType::float64 || !std::isfinite(v)) return true;
  if (to == DType::float32) return std::fabs(v) < kFloat32OverflowThreshold;
  const float f = to == DType::float16 ? detail::half_bits_to_float(detail::double_to_half_bits(v))
                                       : detail::bfloat16_bits_to_float(detail::double_to_bfloat16_bits(v));
  return std::isfinite(f);
}

// Whether a real scalar's value survives conversion to the floating type `to`.
bool real_fits_float(const ScalarValue& s, DTypeKind from_kind, DType to) {
  switch (from_kind) {
    case DTypeKind::boolean: return true;
    case DTypeKind::signed_int:
      if (to == DType::float32) return int_exact_in<float>(s.i);
      if (to == DType::float64) return int_exact_in<double>(s.i);
      return int_exact_in_small_float(static_cast<double>(s.i), to);
    case DTypeKind::unsigned_int:
      if (to == DType::float32) return uint_exact_in<float>(s.u);
      if (to == DType::float64) return uint_exact_in<double>(s.u);
      return int_exact_in_small_float(static_cast<double>(s.u), to);
    case DTypeKind::floating:
      // A float may round (to a neighbour, to a denormal, to zero) but may not overflow: the
      // value converted to the loop type must be finite (inf and nan stay themselves).
      return float_fits(s.f, to);
    case DTypeKind::complex:
      return false;  // complex -> real is never allowed, whatever the imaginary part
  }
  return false;
}

// The part type of a complex dtype.
DType part_of(DType complex_type) {
  return complex_type == DType::complex64 ? DType::float32 : DType::float64;
}

template <class T> void store(ScalarSlot& slot, const T& value) {
  static_assert(sizeof(T) <= sizeof slot.bytes, "a scalar fits its slot");
  std::memset(slot.bytes, 0, sizeof slot.bytes);
  std::memcpy(slot.bytes, &value, sizeof(T));
}

double imag_of(const ScalarValue& s) { return dtype_kind(s.type) == DTypeKind::complex ? s.f_imag : 0.0; }

template <class T> T scalar_as(const ScalarValue& s) {
  switch (dtype_kind(s.type)) {
    case DTypeKind::boolean: return static_cast<T>(s.b);
    case DTypeKind::signed_int: return static_cast<T>(s.i);
    case DTypeKind::unsigned_int: return static_cast<T>(s.u);
    case DTypeKind::floating:
    case DTypeKind::complex: return static_cast<T>(s.f);  // the real part (complex -> real never resolves)
  }
  return T{};
}

// The inputs as a range (size(), [], iteration), without copying them.
struct CallInputs {
  const CallInput* data_;
  std::size_t size_;
  std::size_t size() const { return size_; }
  const CallInput& operator[](std::size_t i) const { return data_[i]; }
  const CallInput* begin() const { return data_; }
  const CallInput* end() const { return data_ + size_; }
};

std::string describe_inputs(const CallInputs& inputs) {
  std::string s;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k) s += ", ";
    s += inputs[k].is_scalar ? fmt::format("{} scalar {}", dtype_name(inputs[k].dtype),
                                           scalar_to_string(*inputs[k].scalar))
                             : fmt::format("{} array", dtype_name(inputs[k].dtype));
  }
  return s;
}

}  // namespace

std::string scalar_to_string(const ScalarValue& s) {
  switch (dtype_kind(s.type)) {
    case DTypeKind::boolean: return s.b ? "true" : "false";
    case DTypeKind::signed_int: return std::to_string(s.i);
    case DTypeKind::unsigned_int: return std::to_string(s.u);
    case DTypeKind::floating: return fmt::format("{}", s.f);
    case DTypeKind::complex: return fmt::format("({}{:+}j)", s.f, s.f_imag);
  }
  return "?";
}

bool scalar_fits(const ScalarValue& s, DType to) {
  // A scalar's value is exact in its own type (Arg and the fusion literals store it so): the
  // common f(x, 0.5f) on a float32 loop needs no range check.
  if (s.type == to) return true;
  const DTypeKind from_kind = dtype_kind(s.type);
  switch (dtype_kind(to)) {
    case DTypeKind::boolean:
      return from_kind == DTypeKind::boolean;
    case DTypeKind::signed_int:
    case DTypeKind::unsigned_int:
      if (from_kind == DTypeKind::boolean) return true;
      if (from_kind == DTypeKind::signed_int) return int_fits(s.i, to);
      if (from_kind == DTypeKind::unsigned_int) return uint_fits(s.u, to);
      // A float fits an integer type when it is integral and in range.
      if (!std::isfinite(s.f) || std::trunc(s.f) != s.f) return false;
      if (s.f < 0) return s.f >= -9.2233720368547758e18 && int_fits(static_cast<std::int64_t>(s.f), to);
      return s.f < 1.8446744073709552e19 && uint_fits(static_cast<std::uint64_t>(s.f), to);
    case DTypeKind::floating:
      return real_fits_float(s, from_kind, to);
    case DTypeKind::complex:
      // A real value goes into the real part; a complex one part by part, as floats.
      if (from_kind != DTypeKind::complex) return real_fits_float(s, from_kind, part_of(to));
      return float_fits(s.f, part_of(to)) && float_fits(s.f_imag, part_of(to));
  }
  return false;
}

void convert_scalar(const ScalarValue& s, DType to, ScalarSlot& slot) {
  // The common f(x, 0.5f): a float scalar of the loop's own type (exact in it).
  if (s.type == to && to == DType::float32) return store<float>(slot, static_cast<float>(s.f));
  if (s.type == to && to == DType::float64) return store<double>(slot, s.f);
  switch (to) {
    case DType::bool_: store<bool>(slot, scalar_as<bool>(s)); break;
    case DType::int8: store<std::int8_t>(slot, scalar_as<std::int8_t>(s)); break;
    case DType::int16: store<std::int16_t>(slot, scalar_as<std::int16_t>(s)); break;
    case DType::int32: store<std::int32_t>(slot, scalar_as<std::int32_t>(s)); break;
    case DType::int64: store<std::int64_t>(slot, scalar_as<std::int64_t>(s)); break;
    case DType::uint8: store<std::uint8_t>(slot, scalar_as<std::uint8_t>(s)); break;
    case DType::uint16: store<std::uint16_t>(slot, scalar_as<std::uint16_t>(s)); break;
    case DType::uint32: store<std::uint32_t>(slot, scalar_as<std::uint32_t>(s)); break;
    case DType::uint64: store<std::uint64_t>(slot, scalar_as<std::uint64_t>(s)); break;
    case DType::float32: store<float>(slot, scalar_as<float>(s)); break;
    case DType::float64: store<double>(slot, scalar_as<double>(s)); break;
    case DType::float16:
      store<std::uint16_t>(slot, detail::double_to_half_bits(scalar_as<double>(s)));
      break;
    case DType::bfloat16:
      store<std::uint16_t>(slot, detail::double_to_bfloat16_bits(scalar_as<double>(s)));
      break;
    case DType::complex64: {
      const float parts[2] = {scalar_as<float>(s), static_cast<float>(imag_of(s))};
      store(slot, parts);
      break;
    }
    case DType::complex128: {
      const double parts[2] = {scalar_as<double>(s), imag_of(s)};
      store(slot, parts);
      break;
    }
  }
}

std::size_t resolve_loop(const std::string& ufunc_name, const std::vector<Signature>& signatures,
                         const CallInput* input_array, std::size_t count) {
  const CallInputs inputs{input_array, count};
  const std::size_t nin = signatures.front().args.size();
  if (inputs.size() != nin) {
    throw ArgumentError(fmt::format("ufunc '{}' takes {} input{}, but {} {} given", ufunc_name, nin,
                                    nin == 1 ? "" : "s", inputs.size(),
                                    inputs.size() == 1 ? "was" : "were"));
  }
  bool any_array = false;
  for (const CallInput& in : inputs) any_array = any_array || !in.is_scalar;
  for (std::size_t s = 0; s < signatures.size(); ++s) {
    const Signature& sig = signatures[s];
    bool fits = true;
    for (std::size_t k = 0; k < nin && fits; ++k) {
      const CallInput& in = inputs[k];
      // With arrays present, the arrays alone choose the loop; scalars are checked after.
      fits = in.is_scalar ? (any_array || scalar_fits(*in.scalar, sig.args[k]))
                          : can_cast_safe(in.dtype, sig.args[k]);
    }
    if (!fits) continue;
    for (std::size_t k = 0; k < nin; ++k) {
      const CallInput& in = inputs[k];
      if (in.is_scalar && !scalar_fits(*in.scalar, sig.args[k])) {
        throw ArgumentError(fmt::format(
            "ufunc '{}': scalar argument {} ({} {}) cannot be represented as {} without changing "
            "its value; the arrays chose loop {}, and scalars take the loop's types (pass an "
            "array, or a value that fits); inputs: ({})",
            ufunc_name, k + 1, dtype_name(in.scalar->type), scalar_to_string(*in.scalar),
            dtype_name(sig.args[k]), sig.to_string(), describe_inputs(inputs)));
      }
    }
    return s;
  }
  std::string listing;
  for (const Signature& sig : signatures) listing += "\n  " + sig.to_string();
  throw ArgumentError(fmt::format(
      "ufunc '{}' has no loop for inputs ({}): no signature accepts them without narrowing an "
      "array (casting='safe'); signatures:{}",
      ufunc_name, describe_inputs(inputs), listing));
}

}  // namespace jitvec::engine
