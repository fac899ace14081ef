#include "kernels/operand_code.hpp"

#include <algorithm>

#include "codegen/source_parts.hpp"

namespace jitvec::kernels {

std::string input_text(std::string_view text, const codegen::LoopSpec& spec, int k,
                       const Slots& extra) {
  Slots slots = extra;
  if (text.find("${k}") != std::string_view::npos) slots.set("k", k);
  if (text.find("${T}") != std::string_view::npos) slots.set("T", codegen::c_type(spec.inputs[k]));
  if (text.find("${L}") != std::string_view::npos) {
    slots.set("L", codegen::c_type(spec.loop.args[k]));
  }
  return fill(text, slots);
}

std::string indented(std::string_view text, int spaces) {
  const std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  out.reserve(text.size() +
              pad.size() * (1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'))));
  // A line at a time (a warm start generates every kernel's text for the cache key).
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    // Preprocessor lines (#pragma) stay at column 0, as in hand-written CUDA.
    if (text[at] != '\n' && text[at] != '#') out += pad;
    out.append(text.substr(at, end - at));
    at = end;
  }
  return out;
}

std::string operand_loads(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          const OperandCode& code, int indent) {
  std::string out;
  for (int k = 0; k < static_cast<int>(spec.inputs.size()); ++k) {
    if (pattern.known_scalar(k)) continue;
    out += indented(input_text(code.declare, spec, k), indent);
    const std::string load = input_text(code.load, spec, k);
    if (pattern.fixed) {
      out += indented(load, indent);
    } else {
      out += indented("if (!((scalar_mask >> " + std::to_string(k) + ") & 1u)) {\n", indent);
      out += indented(load, indent + 2);
      out += indented("}\n", indent);
    }
  }
  return out;
}

std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         const std::function<std::string(int)>& array_value) {
  std::string call = "jitvec_apply(";
  for (int k = 0; k < static_cast<int>(spec.inputs.size()); ++k) {
    if (k) call += ", ";
    const std::string scalar = "s" + std::to_string(k);
    if (pattern.known_scalar(k)) {
      call += scalar;
      continue;
    }
    std::string value = array_value(k);
    if (spec.inputs[k] != spec.loop.args[k]) {
      value = "static_cast<" + codegen::c_type(spec.loop.args[k]) + ">(" + value + ")";
    }
    call += pattern.fixed ? value
                          : "((scalar_mask >> " + std::to_string(k) + ") & 1u ? " + scalar +
                                " : " + value + ")";
  }
  call += ")";
  if (spec.out_storage == spec.loop.result) return call;
  return "static_cast<" + codegen::c_type(spec.out_storage) + ">(" + call + ")";
}

std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         std::string_view array_value) {
  return element_call(spec, pattern, [&](int k) { return input_text(array_value, spec, k); });
}

}  // namespace jitvec::kernels
