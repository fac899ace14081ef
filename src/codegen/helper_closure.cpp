#include "codegen/helper_closure.hpp"

#include <fmt/format.h>

#include <cctype>
#include <functional>

#include "jitvec/errors.hpp"

namespace jitvec::codegen {

std::set<std::string> identifiers_in(std::string_view s) {
  std::set<std::string> ids;
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto is_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto is_part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < n) {
    const char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c) i += s[i] == '\\' ? 2 : 1;
      ++i;
    } else if (is_start(c)) {
      const std::size_t start = i;
      while (i < n && is_part(s[i])) ++i;
      ids.emplace(s.substr(start, i - start));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (is_part(s[i]) || s[i] == '.')) ++i;  // 1.5e3f, 0x1F
    } else {
      ++i;
    }
  }
  return ids;
}

std::vector<const HelperSource*> helpers_used(std::string_view source,
                                              const std::map<std::string, HelperSource>& registry) {
  std::vector<const HelperSource*> ordered;
  std::set<std::string> done;
  std::vector<std::string> stack;  // the helpers being visited, for cycle reports

  std::function<void(std::string_view, const std::string*)> visit =
      [&](std::string_view text, const std::string* self) {
        for (const std::string& id : identifiers_in(text)) {
          if (self && id == *self) continue;  // a helper may recurse into itself
          auto it = registry.find(id);
          if (it == registry.end() || done.count(id)) continue;
          for (const std::string& open : stack) {
            if (open == id) {
              std::string chain;
              for (const std::string& s : stack) chain += s + " -> ";
              throw DefinitionError(fmt::format(
                  "device functions call each other in a cycle: {}{}; jitvec pastes helpers "
                  "in dependency order and cannot order a cycle (merge them into one helper)",
                  chain, id));
            }
          }
          stack.push_back(id);
          visit(it->second.source, &it->first);
          stack.pop_back();
          done.insert(id);
          ordered.push_back(&it->second);
        }
      };
  visit(source, nullptr);
  return ordered;
}

}  // namespace jitvec::codegen
