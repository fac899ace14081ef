#include "codegen/loop_spec.hpp"

#include <fmt/format.h>

namespace jitvec::codegen {

LoopSpec LoopSpec::exact(const Signature& signature) {
  return LoopSpec{signature, signature.args, signature.result};
}

std::string LoopSpec::describe() const {
  std::string s = loop.to_string() + " <- [";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i) s += ", ";
    s += dtype_name(inputs[i]);
  }
  return s + fmt::format("] -> {}", dtype_name(out_storage));
}

}  // namespace jitvec::codegen
