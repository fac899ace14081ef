// src/engine/type_resolution.hpp: which loop serves a call, and scalars in the loop's types.
//
// NumPy's rules, with scalars "weak" as in NumPy 2:
//   - the arrays choose the loop: the first signature, in definition order, to which every
//     array input casts safely (can_cast(..., 'safe'): an array is never narrowed silently);
//   - scalars then take that loop's types, and a scalar whose value would change is an error
//     naming it (15.0 into int16 is fine; 15.5 into int16 and 300 into int8 are not; an
//     integer must be exact in a float type; a float may round but not overflow: the
//     value converted to the loop's type must be finite, so 3.4028235e38 (FLT_MAX as it
//     prints) fits float32 and 3.4028236e38 does not);
//   - a call of scalars only takes the first signature that holds every scalar's value.
//   - float16 and bfloat16 take the same rules (1e5 does not fit float16: it overflows); a
//     complex scalar (std::complex<float/double>) fits a complex loop when neither part
//     overflows, and never a real loop; a real scalar fits a complex loop as its real part does.
// convert_scalar() writes a scalar in a loop's type into a 16-byte slot (a complex128 needs
// all of it), ready to be passed to a kernel as a parameter or to a CPU loop by pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "jitvec/signature.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec::engine {

/// One input of a call as type resolution sees it.
struct CallInput {
  bool is_scalar;
  DType dtype;                  // array dtype, or the scalar's C++ type
  const ScalarValue* scalar;    // for scalars
};

/// Index into `signatures` of the loop for these inputs; throws ArgumentError explaining why
/// none fits (the inputs' dtypes and every signature).
std::size_t resolve_loop(const std::string& ufunc_name, const std::vector<Signature>& signatures,
                         const CallInput* inputs, std::size_t count);
inline std::size_t resolve_loop(const std::string& ufunc_name,
                                const std::vector<Signature>& signatures,
                                const std::vector<CallInput>& inputs) {
  return resolve_loop(ufunc_name, signatures, inputs.data(), inputs.size());
}

/// Whether the scalar's value survives conversion to `to` (see the header comment).
bool scalar_fits(const ScalarValue& value, DType to);

/// "15.5", "300", "true".
std::string scalar_to_string(const ScalarValue& value);

/// 16 bytes, aligned, holding one scalar converted to a loop type.
struct alignas(16) ScalarSlot {
  unsigned char bytes[16];
};
void convert_scalar(const ScalarValue& value, DType to, ScalarSlot& slot);

}  // namespace jitvec::engine
