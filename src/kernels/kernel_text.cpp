#include "kernels/kernel_text.hpp"

#include <stdexcept>

namespace jitvec::kernels {

Slots::Slots(std::initializer_list<std::pair<std::string_view, std::string>> values) {
  for (const auto& [name, value] : values) set(name, value);
}

Slots& Slots::set(std::string_view name, std::string value) {
  for (auto& [known, old] : values_) {
    if (known == name) {
      old = std::move(value);
      return *this;
    }
  }
  values_.emplace_back(std::string(name), std::move(value));
  return *this;
}

Slots& Slots::set(std::string_view name, long long value) {
  return set(name, std::to_string(value));
}

const std::string* Slots::find(std::string_view name) const {
  for (const auto& [known, value] : values_) {
    if (known == name) return &value;
  }
  return nullptr;
}

std::string fill(std::string_view text, const Slots& slots) {
  std::string out;
  out.reserve(text.size() + 256);
  std::vector<bool> used(slots.values().size(), false);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("${", at);
    if (open == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    const std::size_t close = text.find('}', open);
    if (close == std::string_view::npos) {
      throw std::logic_error("jitvec kernel text: unterminated slot at '" +
                             std::string(text.substr(open, 40)) + "'");
    }
    out.append(text.substr(at, open - at));
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const std::string* value = slots.find(name);
    if (!value) {
      throw std::logic_error("jitvec kernel text: no value for slot ${" + std::string(name) + "}");
    }
    for (std::size_t i = 0; i < slots.values().size(); ++i) {
      if (&slots.values()[i].second == value) used[i] = true;
    }
    out.append(*value);
    at = close + 1;
  }
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      throw std::logic_error("jitvec kernel text: slot ${" + slots.values()[i].first +
                             "} is given but the text never uses it");
    }
  }
  return out;
}

}  // namespace jitvec::kernels
