#include "jitvec/dtype.hpp"

#include <array>

namespace jitvec {
namespace {

struct DTypeTraits {
  std::string_view name;
  std::string_view c_type;
  std::size_t size;
  DTypeKind kind;
};

// Indexed by DType. The C types are the ones both NVRTC and the host compiler agree on; the
// 2-byte and complex ones are defined by the preludes (src/kernels/device_types.hpp).
constexpr std::array<DTypeTraits, kDTypeCount> kTraits = {{
    {"bool", "bool", 1, DTypeKind::boolean},
    {"int8", "signed char", 1, DTypeKind::signed_int},
    {"int16", "short", 2, DTypeKind::signed_int},
    {"int32", "int", 4, DTypeKind::signed_int},
    {"int64", "long long", 8, DTypeKind::signed_int},
    {"uint8", "unsigned char", 1, DTypeKind::unsigned_int},
    {"uint16", "unsigned short", 2, DTypeKind::unsigned_int},
    {"uint32", "unsigned int", 4, DTypeKind::unsigned_int},
    {"uint64", "unsigned long long", 8, DTypeKind::unsigned_int},
    {"float32", "float", 4, DTypeKind::floating},
    {"float64", "double", 8, DTypeKind::floating},
    {"float16", "__half", 2, DTypeKind::floating},
    {"bfloat16", "__nv_bfloat16", 2, DTypeKind::floating},
    {"complex64", "jitvec::complex<float>", 8, DTypeKind::complex},
    {"complex128", "jitvec::complex<double>", 16, DTypeKind::complex},
}};

const DTypeTraits& traits(DType t) { return kTraits[static_cast<std::size_t>(t)]; }

struct Alias {
  std::string_view name;
  DType type;
};
// Numba's names and NumPy's short codes ("f4": a float of 4 bytes).
constexpr Alias kAliases[] = {
    {"bool", DType::bool_},     {"boolean", DType::bool_},    {"bool_", DType::bool_},
    {"b1", DType::bool_},       {"?", DType::bool_},          {"int8", DType::int8},
    {"i1", DType::int8},        {"byte", DType::int8},        {"int16", DType::int16},
    {"i2", DType::int16},       {"short", DType::int16},      {"int32", DType::int32},
    {"i4", DType::int32},       {"intc", DType::int32},       {"int64", DType::int64},
    {"i8", DType::int64},       {"intp", DType::int64},       {"uint8", DType::uint8},
    {"u1", DType::uint8},       {"ubyte", DType::uint8},      {"uint16", DType::uint16},
    {"u2", DType::uint16},      {"ushort", DType::uint16},    {"uint32", DType::uint32},
    {"u4", DType::uint32},      {"uintc", DType::uint32},     {"uint64", DType::uint64},
    {"u8", DType::uint64},      {"uintp", DType::uint64},     {"float32", DType::float32},
    {"f4", DType::float32},     {"single", DType::float32},   {"float64", DType::float64},
    {"f8", DType::float64},     {"double", DType::float64},   {"float16", DType::float16},
    {"f2", DType::float16},     {"half", DType::float16},     {"e", DType::float16},
    {"bfloat16", DType::bfloat16}, {"bf16", DType::bfloat16}, {"complex64", DType::complex64},
    {"c8", DType::complex64},   {"csingle", DType::complex64}, {"F", DType::complex64},
    {"complex128", DType::complex128}, {"c16", DType::complex128}, {"cdouble", DType::complex128},
    {"complex", DType::complex128}, {"D", DType::complex128},
};

// Bits of value an integer type holds, for the safe-cast rule between integer kinds.
int value_bits(DType t) { return static_cast<int>(dtype_size(t)) * 8; }

// A floating-point format: significand bits (with the implicit one) and exponent bits.
struct FloatFormat {
  int precision;
  int exponent_bits;
};
FloatFormat float_format(DType t) {
  switch (t) {
    case DType::float16: return {11, 5};
    case DType::bfloat16: return {8, 8};
    case DType::float32: return {24, 8};
    default: return {53, 11};  // float64
  }
}
// The type of one part of a complex type.
DType complex_part(DType t) { return t == DType::complex64 ? DType::float32 : DType::float64; }

// Safe casts into a real floating-point type `to`.
bool safe_into_float(DType from, DTypeKind fk, DType to) {
  const FloatFormat f = float_format(to);
  if (fk == DTypeKind::floating) {
    const FloatFormat g = float_format(from);
    return f.precision >= g.precision && f.exponent_bits >= g.exponent_bits;
  }
  // An integer fits when its bits fit the significand; NumPy also counts (u)int64 -> float64.
  return f.precision >= value_bits(from) || (value_bits(from) == 64 && to == DType::float64);
}

}  // namespace

std::size_t dtype_size(DType t) { return traits(t).size; }
DTypeKind dtype_kind(DType t) { return traits(t).kind; }
std::string_view dtype_name(DType t) { return traits(t).name; }
std::string_view dtype_c_type(DType t) { return traits(t).c_type; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const Alias& alias : kAliases) {
    if (alias.name == name) return alias.type;
  }
  return std::nullopt;
}

std::size_t dtype_alignment(DType t) {
  return dtype_kind(t) == DTypeKind::complex ? dtype_size(t) / 2 : dtype_size(t);
}

bool can_cast_safe(DType from, DType to) {
  if (from == to) return true;
  const DTypeKind fk = dtype_kind(from);
  const DTypeKind tk = dtype_kind(to);
  if (fk == DTypeKind::boolean) return true;  // bool casts safely to every type
  switch (tk) {
    case DTypeKind::boolean: return false;
    case DTypeKind::unsigned_int:
      return fk == DTypeKind::unsigned_int && value_bits(to) >= value_bits(from);
    case DTypeKind::signed_int:
      if (fk == DTypeKind::signed_int) return value_bits(to) >= value_bits(from);
      return fk == DTypeKind::unsigned_int && value_bits(to) > value_bits(from);
    case DTypeKind::floating:
      return fk != DTypeKind::complex && safe_into_float(from, fk, to);
    case DTypeKind::complex:
      if (fk == DTypeKind::complex) return can_cast_safe(complex_part(from), complex_part(to));
      return safe_into_float(from, fk, complex_part(to));
  }
  return false;
}

bool can_cast_same_kind(DType from, DType to) {
  if (can_cast_safe(from, to)) return true;
  const DTypeKind fk = dtype_kind(from);
  const DTypeKind tk = dtype_kind(to);
  if (fk == tk) return true;
  // Signed and unsigned integers are one kind for 'same_kind' in the direction u -> i.
  if (fk == DTypeKind::unsigned_int && tk == DTypeKind::signed_int) return true;
  return static_cast<int>(tk) > static_cast<int>(fk) && tk != DTypeKind::unsigned_int;
}

bool can_cast(DType from, DType to, Casting casting) {
  switch (casting) {
    case Casting::no: return from == to;
    case Casting::safe: return can_cast_safe(from, to);
    case Casting::same_kind: return can_cast_same_kind(from, to);
  }
  return false;
}

std::string_view casting_name(Casting casting) {
  switch (casting) {
    case Casting::no: return "no";
    case Casting::safe: return "safe";
    case Casting::same_kind: return "same_kind";
  }
  return "?";
}

}  // namespace jitvec
