#include "codegen/loop_spec.hpp"

#include <fmt/format.h>

namespace jitvec::codegen {

LoopSpec LoopSpec::exact(const Signature& signature) {
  return LoopSpec{signature, signature.args, signature.results};
}

std::string LoopSpec::describe() const {
  std::string s = loop.to_string() + " <- [";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i) s += ", ";
    s += dtype_name(inputs[i]);
  }
  if (outputs.size() == 1) return s + fmt::format("] -> {}", dtype_name(outputs[0]));
  std::string outs;
  for (std::size_t o = 0; o < outputs.size(); ++o) outs += fmt::format("{}{}", o ? ", " : "", dtype_name(outputs[o]));
  return s + "] -> (" + outs + ")";
}

}  // namespace jitvec::codegen
