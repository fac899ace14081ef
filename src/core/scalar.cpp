#include "jitvec/scalar.hpp"

#include "jitvec/errors.hpp"

namespace jitvec {

void Scalar::throw_long_double_overflow() {
  throw ArgumentError(
      "a long double scalar is beyond float64's range, and float64 is jitvec's widest float type "
      "(a scalar may round into a loop's type but not overflow it)");
}

}  // namespace jitvec
