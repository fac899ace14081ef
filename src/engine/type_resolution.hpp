// src/engine/type_resolution.hpp: which loop serves a call, and scalars in the loop's types.
//
// NumPy's rules, with scalars "weak" as in NumPy 2:
//   - a loop (signature) fits when every array input casts safely to its argument type
//     (can_cast(..., 'safe'): an array is never narrowed silently) and every scalar's value is
//     representable in its argument type (15.0 fits int16; 15.5 and 300-into-int8 do not;
//     any finite number fits a float type unless it overflows it);
//   - the first fitting signature, in definition order, wins;
//   - when a signature fits the arrays but not a scalar, the error says which scalar and why.
// convert_scalar() writes a scalar in a loop's type into an 8-byte slot, ready to be passed
// to a kernel as a parameter or to a CPU loop by pointer.
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
                         const std::vector<CallInput>& inputs);

/// Whether the scalar's value survives conversion to `to` (see the header comment).
bool scalar_fits(const ScalarValue& value, DType to);

/// "15.5", "300", "true".
std::string scalar_to_string(const ScalarValue& value);

/// 8 bytes, aligned, holding one scalar converted to a loop type.
struct alignas(8) ScalarSlot {
  unsigned char bytes[8];
};
void convert_scalar(const ScalarValue& value, DType to, ScalarSlot& slot);

}  // namespace jitvec::engine
