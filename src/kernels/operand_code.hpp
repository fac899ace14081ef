// src/kernels/operand_code.hpp: the generated code that depends on a loop's operands.
//
// A kernel family's text is fixed except where it reads inputs and computes the element; those
// parts repeat once per input with that input's types, and whether an input is a scalar is
// either read at run time from `scalar_mask` or fixed when the kernel is generated (the
// specialized scalar patterns, see kernel_abi.hpp). This file writes them, for every family:
//   - operand_loads(): each array input's declaration and load statements, from a per-input
//     text with the slots ${k} (the input's index), ${T} (its storage type) and ${L} (its loop
//     type); under a run-time test of scalar_mask, or without one (and without the inputs a
//     fixed pattern makes scalars);
//   - element_call(): the expression of one output element, jitvec_apply() over the inputs
//     (s<k> for a scalar, the loaded value converted to the loop type for an array), converted
//     to the output's storage type (loops of one output);
//   - element_store(): the statement that computes one element and stores it into every
//     output, from a per-output target text with the slots of output_text(): for one output
//     `<target> = <element_call>;`, for several one block that declares each result in the
//     loop's type, calls jitvec_apply(inputs..., res0, res1, ...) once and stores each result
//     converted to its output's storage type, so every output is written in the same pass;
//   - output_text() / each_output(): per-output code (declarations, pointers, stores) with the
//     slots ${j} (the output's index), ${s} (its suffix in names: "" for one output, else j;
//     kernel_abi.hpp), ${O} (its storage type) and ${op} (its operand index in the strided
//     block: `OUT` for the first, `OUT + j` after it, where the kernel defines OUT as the first
//     output's operand).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {

/// Which inputs are scalars: read from `scalar_mask` at run time, or fixed in the generated code.
struct ScalarPattern {
  std::optional<std::uint32_t> fixed;

  static ScalarPattern run_time() { return ScalarPattern{}; }
  static ScalarPattern fixed_to(std::uint32_t mask) { return ScalarPattern{mask}; }
  /// Whether input k is known, when generating, to be a scalar.
  bool known_scalar(int k) const { return fixed && ((*fixed >> k) & 1u); }
};

/// Per-input code: `declare` for every input that may be an array; `load` only when it is one.
struct OperandCode {
  std::string_view declare;
  std::string_view load;
};

/// The slots ${k}, ${T} and ${L} of input k of `spec` filled into `text`, with `extra` slots.
std::string input_text(std::string_view text, const codegen::LoopSpec& spec, int k,
                       const Slots& extra = {});

/// Each input's OperandCode, indented by `indent` spaces; with a run-time pattern the load is
/// wrapped in `if (!((scalar_mask >> k) & 1u)) { ... }`.
std::string operand_loads(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          const OperandCode& code, int indent);

/// The output element, where `array_value(k)` is the text of input k's array element in its
/// storage type.
std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         const std::function<std::string(int)>& array_value);
/// The same with input k's array element given as text with the slots of input_text().
std::string element_call(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                         std::string_view array_value);

/// The slots ${j}, ${s}, ${O} and ${op} of output j of `spec` filled into `text`.
std::string output_text(std::string_view text, const codegen::LoopSpec& spec, int j);
/// output_text() of every output, each indented by `indent` spaces.
std::string each_output(const codegen::LoopSpec& spec, std::string_view text, int indent);

/// One element computed and stored into every output; `target` is the output's element as text
/// with the slots of output_text() (for example "out${s}[i]").
std::string element_store(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          const std::function<std::string(int)>& array_value,
                          std::string_view target);
/// The same with input k's array element given as text with the slots of input_text().
std::string element_store(const codegen::LoopSpec& spec, const ScalarPattern& pattern,
                          std::string_view array_value, std::string_view target);

/// `text` with every non-empty line indented by `spaces` more.
std::string indented(std::string_view text, int spaces);

}  // namespace jitvec::kernels
