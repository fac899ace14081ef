// src/kernels/kernel_text.hpp: kernel source written as real code with named `${slot}`s.
//
// Every kernel family keeps its kernel as CUDA (or host C++) text in which only what depends
// on the loop is a slot: `${name}` for the kernel's name, `${params}` for its parameter list,
// `${loads}` for the operands' loads, `${element}` for the element expression, and so on, as
// PyTorch's jiterator and CuPy's elementwise kernels do. fill() substitutes them; a slot in
// the text that has no value, or a value that the text never uses, is a bug in the generator
// and throws std::logic_error at once (the golden-source tests run every family).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jitvec::kernels {

/// Values for a template's slots, by name.
class Slots {
 public:
  Slots() = default;
  Slots(std::initializer_list<std::pair<std::string_view, std::string>> values);
  Slots& set(std::string_view name, std::string value);
  Slots& set(std::string_view name, long long value);
  const std::string* find(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
};

/// `text` with every `${name}` replaced by its value in `slots`.
std::string fill(std::string_view text, const Slots& slots);

}  // namespace jitvec::kernels
