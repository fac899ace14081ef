#include "kernels/operand_code.hpp"

#include <algorithm>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_abi.hpp"

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

namespace {

// jitvec_apply's input arguments, "a, b, c".
std::string apply_arguments(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                            const std::function<std::string(int)>& array_value) {
  std::string call;
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
  return call;
}

// `value` (of the loop's result type j) converted to output j's storage type.
std::string stored(const codegen::LoopSpec& spec, int j, const std::string& value) {
  if (spec.outputs[j] == spec.loop.results[j]) return value;
  return "static_cast<" + codegen::c_type(spec.outputs[j]) + ">(" + value + ")";
}

}  // namespace

std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         const std::function<std::string(int)>& array_value) {
  return stored(spec, 0, "jitvec_apply(" + apply_arguments(spec, pattern, array_value) + ")");
}

std::string output_text(std::string_view text, const codegen::LoopSpec& spec, int j) {
  Slots slots;
  if (text.find("${j}") != std::string_view::npos) slots.set("j", j);
  if (text.find("${s}") != std::string_view::npos) slots.set("s", output_suffix(spec, j));
  if (text.find("${O}") != std::string_view::npos) slots.set("O", codegen::c_type(spec.outputs[j]));
  if (text.find("${op}") != std::string_view::npos) {
    slots.set("op", j == 0 ? std::string("OUT") : "OUT + " + std::to_string(j));
  }
  return fill(text, slots);
}

std::string each_output(const codegen::LoopSpec& spec, std::string_view text, int indent) {
  std::string out;
  for (int j = 0; j < spec.nout(); ++j) out += indented(output_text(text, spec, j), indent);
  return out;
}

std::string element_store(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          const std::function<std::string(int)>& array_value,
                          std::string_view target) {
  if (spec.nout() == 1) {
    return output_text(target, spec, 0) + " = " + element_call(spec, pattern, array_value) + ";";
  }
  std::string declare, call = "jitvec_apply(" + apply_arguments(spec, pattern, array_value);
  std::string stores;
  for (int j = 0; j < spec.nout(); ++j) {
    const std::string result = "res" + std::to_string(j);
    declare += codegen::c_type(spec.loop.results[j]) + " " + result + "; ";
    call += ", " + result;
    stores += " " + output_text(target, spec, j) + " = " + stored(spec, j, result) + ";";
  }
  return "{ " + declare + call + ");" + stores + " }";
}

std::string element_store(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          std::string_view array_value, std::string_view target) {
  return element_store(spec, pattern, [&](int k) { return input_text(array_value, spec, k); }, target);
}

std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         std::string_view array_value) {
  return element_call(spec, pattern, [&](int k) { return input_text(array_value, spec, k); });
}

}  // namespace jitvec::kernels
