#include "codegen/reserved_names.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace jitvec::codegen {
namespace {

// C23's narrowing operations: <result format><operation><argument format>, e.g. fadd (float
// from double), daddl (double from long double), f32addf64 (_Float32 from _Float64). Every
// combination is refused, the ones glibc does not declare (dadd) included: a name that looks
// like one is a trap either way.
constexpr std::array<std::string_view, 7> kResults{"f", "d", "f32", "f32x", "f64", "f64x", "f128"};
constexpr std::array<std::string_view, 6> kOperations{"add", "sub", "mul", "div", "fma", "sqrt"};
constexpr std::array<std::string_view, 7> kArguments{"", "l", "f32", "f32x", "f64", "f64x", "f128"};

bool is_narrowing_function(std::string_view name) {
  for (std::string_view result : kResults) {
    if (name.substr(0, result.size()) != result) continue;
    const std::string_view after_result = name.substr(result.size());
    for (std::string_view operation : kOperations) {
      if (after_result.substr(0, operation.size()) != operation) continue;
      const std::string_view argument = after_result.substr(operation.size());
      for (std::string_view known : kArguments) {
        if (argument == known) return true;
      }
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> reserved_name_reason(const std::string& name) {
  if (!is_narrowing_function(name)) return std::nullopt;
  return fmt::format(
      "'{}' is the name of a C23 <math.h> narrowing function (like float fadd(double, double)), "
      "which the host's C library declares: on the cpu and parallel targets a call with float64 "
      "arguments would run that function instead of yours, while the GPU runs yours; choose "
      "another name",
      name);
}

}  // namespace jitvec::codegen
