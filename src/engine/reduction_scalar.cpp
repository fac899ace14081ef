#include "engine/reduction_scalar.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "jitvec/errors.hpp"
#include "jitvec/half.hpp"

namespace jitvec::engine {
namespace {

bool is_zero_or_one(const ScalarValue& v) {
  switch (dtype_kind(v.type)) {
    case DTypeKind::boolean: return true;
    case DTypeKind::signed_int: return v.i == 0 || v.i == 1;
    case DTypeKind::unsigned_int: return v.u <= 1;
    case DTypeKind::floating: return v.f == 0 || v.f == 1;
    case DTypeKind::complex: return false;
  }
  return false;
}

// Whether a double converts to the float type `t` and back unchanged (NaN stays NaN).
bool float_exact_in(double v, DType t) {
  if (std::isnan(v)) return true;
  switch (t) {
    case DType::float16: return detail::half_bits_to_float(detail::double_to_half_bits(v)) == v;
    case DType::bfloat16: return detail::bfloat16_bits_to_float(detail::double_to_bfloat16_bits(v)) == v;
    case DType::float32:
    case DType::complex64:
      return !(std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) &&
             static_cast<double>(static_cast<float>(v)) == v;
    default: return true;  // float64, complex128
  }
}

// Whether `v` fits `t` by the accumulator's rule (see the header).
bool fits_accumulator(const ScalarValue& v, DType t) {
  return t == DType::bool_ ? is_zero_or_one(v) : scalar_fits(v, t);
}

// Whether `v` survives conversion to `t` unchanged.
bool holds_exactly(const ScalarValue& v, DType t) {
  const DTypeKind from = dtype_kind(v.type), to = dtype_kind(t);
  if (to == DTypeKind::boolean) return is_zero_or_one(v);
  if (from == DTypeKind::complex && to != DTypeKind::complex) return false;
  if (to != DTypeKind::floating && to != DTypeKind::complex) return scalar_fits(v, t);  // integers: exact
  if (from != DTypeKind::floating && from != DTypeKind::complex) return scalar_fits(v, t);  // exact rule
  return float_exact_in(v.f, t) && float_exact_in(from == DTypeKind::complex ? v.f_imag : 0.0, t);
}

std::string integer_range(DType t) {
  switch (t) {
    case DType::int8: return "[-128, 127]";
    case DType::int16: return "[-32768, 32767]";
    case DType::int32: return "[-2147483648, 2147483647]";
    case DType::int64: return "[-9223372036854775808, 9223372036854775807]";
    case DType::uint8: return "[0, 255]";
    case DType::uint16: return "[0, 65535]";
    case DType::uint32: return "[0, 4294967295]";
    case DType::uint64: return "[0, 18446744073709551615]";
    default: return "";
  }
}

// Why `v` does not fit `t` (`exact`: by holds_exactly's rule, else by the accumulator's).
std::string why_not(const ScalarValue& v, DType t, bool exact) {
  const DTypeKind from = dtype_kind(v.type), to = dtype_kind(t);
  if (from == DTypeKind::complex && to != DTypeKind::complex) {
    return fmt::format("{} is real, and a complex value does not cast to a real type (NumPy's casting "
                       "rule: numpy.can_cast({}, {}, 'safe') is False); give a real value, or reduce "
                       "in a complex dtype",
                       dtype_name(t), dtype_name(v.type), dtype_name(t));
  }
  if (to == DTypeKind::boolean) return "a bool holds only true, false, 0 and 1";
  if (to == DTypeKind::signed_int || to == DTypeKind::unsigned_int) {
    if (from == DTypeKind::floating && !std::isfinite(v.f)) {
      return fmt::format("{} has no infinity or NaN", dtype_name(t));
    }
    if (from == DTypeKind::floating && std::trunc(v.f) != v.f) {
      return "it is not an integer (NumPy would truncate it; jitvec refuses a value that would change)";
    }
    return fmt::format("it is outside {}'s range {}", dtype_name(t), integer_range(t));
  }
  if (from != DTypeKind::floating && from != DTypeKind::complex) {
    return fmt::format("{} cannot hold this integer exactly", dtype_name(t));
  }
  return exact ? fmt::format("{} cannot hold it exactly (it would round)", dtype_name(t))
               : fmt::format("it overflows {}", dtype_name(t));
}

// `as`: what `t` is to the reduction ("the accumulator type int64", "the input's dtype int8
// exactly, as where= needs for its masked elements").
[[noreturn]] void throw_does_not_fit(const std::string& ufunc, const char* method, const char* what,
                                     const ScalarValue& v, DType t, const std::string& as, bool exact) {
  throw ArgumentError(fmt::format("ufunc '{}': {}(): the {} {} ({}) does not fit {}: {}", ufunc, method, what,
                                  scalar_to_string(v), dtype_name(v.type), as, why_not(v, t, exact)));
}

}  // namespace

ScalarSlot accumulator_value(const std::string& ufunc, const char* method, const char* what,
                             const Scalar& value, DType acc) {
  const ScalarValue& v = value.value();
  if (!fits_accumulator(v, acc)) {
    throw_does_not_fit(ufunc, method, what, v, acc, fmt::format("the accumulator type {}", dtype_name(acc)), false);
  }
  ScalarSlot slot;
  convert_scalar(v, acc, slot);
  return slot;
}

ScalarValue exact_value(const std::string& ufunc, const char* method, const char* what, const Scalar& value,
                        DType t) {
  const ScalarValue& v = value.value();
  if (!holds_exactly(v, t)) {
    throw_does_not_fit(ufunc, method, what, v, t,
                       fmt::format("the input's dtype {} exactly, as where= needs for its masked elements",
                                   dtype_name(t)),
                       true);
  }
  const DTypeKind from = dtype_kind(v.type);
  auto real_as_double = [&]() -> double {
    switch (from) {
      case DTypeKind::boolean: return v.b ? 1.0 : 0.0;
      case DTypeKind::signed_int: return static_cast<double>(v.i);
      case DTypeKind::unsigned_int: return static_cast<double>(v.u);
      default: return v.f;
    }
  };
  ScalarValue out;
  out.type = t;
  switch (dtype_kind(t)) {
    case DTypeKind::boolean:
      out.b = real_as_double() != 0;
      break;
    case DTypeKind::signed_int:
      out.i = from == DTypeKind::signed_int     ? v.i
              : from == DTypeKind::unsigned_int ? static_cast<std::int64_t>(v.u)
              : from == DTypeKind::boolean      ? std::int64_t{v.b}
                                                : static_cast<std::int64_t>(v.f);
      break;
    case DTypeKind::unsigned_int:
      out.u = from == DTypeKind::unsigned_int ? v.u
              : from == DTypeKind::signed_int ? static_cast<std::uint64_t>(v.i)
              : from == DTypeKind::boolean    ? std::uint64_t{v.b}
                                              : static_cast<std::uint64_t>(v.f);
      break;
    case DTypeKind::floating:
    case DTypeKind::complex:
      out.f = real_as_double();  // exact: holds_exactly checked it
      out.f_imag = from == DTypeKind::complex ? v.f_imag : 0.0;
      break;
  }
  return out;
}

}  // namespace jitvec::engine
