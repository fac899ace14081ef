// src/definitions/definition_file.cpp: toml++ does the TOML; this file checks the shape of a
// definition file and turns it into DefinitionSet (see definition_file.hpp).
#include "definitions/definition_file.hpp"

#include <fmt/format.h>

// toml++ 3.3 asserts on some malformed keys (`[`a]`) in builds without NDEBUG, which would abort
// the program instead of reporting a parse error (found by tests/fuzz/fuzz_definitions): its
// parser reports the error itself, so the assertion is turned off.
#ifndef TOML_ASSERT
#define TOML_ASSERT(expr) static_assert(true)
#endif
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/edit_distance.hpp"
#include "core/log.hpp"
#include "core/regular_file.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/scalar.hpp"

namespace jitvec::definitions {
namespace {

constexpr std::string_view kHelpersTable = "device_functions";
constexpr std::string_view kUfuncsTable = "ufuncs";
constexpr std::string_view kFusionsTable = "fusions";
constexpr std::string_view kDerivativesTable = "derivatives";  // engine/derivative.hpp
constexpr std::array<std::string_view, 4> kTopLevelTables = {kHelpersTable, kUfuncsTable,
                                                              kFusionsTable, kDerivativesTable};
constexpr std::array<std::string_view, 4> kDerivativeKeys = {"of", "wrt", "value", "targets"};
constexpr std::array<std::string_view, 1> kHelperKeys = {"source"};
constexpr std::string_view kGufuncsTable = "gufuncs";  // generalized ufuncs (engine/gufunc.hpp)
constexpr std::array<std::string_view, 3> kGufuncKeys = {"signatures", "layout", "source"};
constexpr std::array<std::string_view, 7> kUfuncKeys = {"signatures", "targets", "source", "identity",
                                                          "methods", "fastmath", "ranges"};
// The ufunc methods whose loops `methods` may ask `jitvec compile` to build (issue 11).
constexpr std::array<std::string_view, 2> kMethodNames = {"reduce", "accumulate"};
constexpr std::array<std::string_view, 2> kFusionKeys = {"expression", "targets"};
constexpr std::array<std::string_view, 3> kTargetNames = {"cuda", "cpu", "parallel"};

// C++17 keywords and alternative tokens, plus C++20's (so a later -std does not break a file).
constexpr std::string_view kCppKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
};

bool is_cpp_keyword(std::string_view word) {
  return std::find(std::begin(kCppKeywords), std::end(kCppKeywords), word) !=
         std::end(kCppKeywords);
}

bool is_identifier(std::string_view word) {
  const auto is_start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  const auto is_rest = [&](char c) { return is_start(c) || (c >= '0' && c <= '9'); };
  return !word.empty() && is_start(word.front()) &&
         std::all_of(word.begin() + 1, word.end(), is_rest) && !is_cpp_keyword(word);
}

using detail::edit_distance;  // core/edit_distance.hpp, for "did you mean" hints

template <std::size_t N>
std::optional<std::string_view> closest(std::string_view word,
                                        const std::array<std::string_view, N>& candidates) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;  // suggest only names at most two edits away
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance && distance < word.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

template <std::size_t N>
std::string quoted_list(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? (N > 2 ? ", or " : " or ") : ", ";
    out += fmt::format("'{}'", names[i]);
  }
  return out;
}

// One entry of a table, with the line it starts on (tables sort by key, files do not).
struct Entry {
  std::string_view key;
  const toml::node* node;
  toml::source_position position;
};

// A string from an array, with the line it is on.
struct StringItem {
  std::string value;
  std::uint32_t line;
};

std::vector<Entry> entries_in_file_order(const toml::table& table) {
  std::vector<Entry> entries;
  for (const auto& [key, node] : table) {
    // A table made implicitly (by a dotted key) may have no position of its own; its key has.
    toml::source_position position = node.source().begin;
    if (!position) position = key.source().begin;
    entries.push_back(Entry{key.str(), &node, position});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.position < b.position;
  });
  return entries;
}

class DefinitionParser {
 public:
  DefinitionParser(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  DefinitionSet parse() {
    toml::table root;
    try {
      root = toml::parse(text_, file_);
    } catch (const toml::parse_error& error) {
      const auto& where = error.source().begin;
      throw DefinitionError(fmt::format("{}:{}:{}: TOML syntax error: {}", file_, where.line,
                                        where.column, error.description()));
    }
    for (const Entry& top : entries_in_file_order(root)) {
      if (top.key == kGufuncsTable) {
        parse_gufuncs(top);
        continue;
      }
      if (top.key != kHelpersTable && top.key != kUfuncsTable && top.key != kFusionsTable &&
          top.key != kDerivativesTable) {
        const auto hint = closest(top.key, kTopLevelTables);
        fail(top.position.line, "",
             fmt::format("unknown top-level {} '{}'{}; a definition file holds only "
                         "[{}.NAME], [{}.NAME], [{}.NAME], [{}.NAME] and [{}.NAME] tables",
                         top.node->is_table() ? "table" : "key", top.key,
                         hint ? fmt::format(" (did you mean '{}'?)", *hint) : "",
                         kHelpersTable, kUfuncsTable, kGufuncsTable, kFusionsTable, kDerivativesTable));
      }
      const toml::table* group = top.node->as_table();
      if (group == nullptr) {
        fail(top.position.line, "",
             fmt::format("'{}' must be a table of entries ([{}.NAME]), not {}", top.key,
                         top.key, type_name(*top.node)));
      }
      for (const Entry& entry : entries_in_file_order(*group)) {
        if (top.key == kHelpersTable) {
          parse_helper(entry);
        } else if (top.key == kUfuncsTable) {
          parse_ufunc(entry);
        } else if (top.key == kDerivativesTable) {
          parse_derivative(entry);
        } else {
          parse_fusion(entry);
        }
      }
    }
    return std::move(result_);
  }

 private:
  [[noreturn]] void fail(std::uint32_t line, std::string_view entry,
                         std::string_view message) const {
    if (entry.empty()) throw DefinitionError(fmt::format("{}:{}: {}", file_, line, message));
    throw DefinitionError(fmt::format("{}:{}: {}: {}", file_, line, entry, message));
  }

  // "a string", "an integer", ...: what a value is, for messages.
  static std::string_view type_name(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a floating-point number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::date: return "a date";
      case toml::node_type::time: return "a time";
      case toml::node_type::date_time: return "a date-time";
      case toml::node_type::none: break;
    }
    return "a value";
  }

  // Checks what every entry shares (a table, a C++ name, unique, known keys) and returns its
  // table.
  template <std::size_t N>
  const toml::table& check_entry(const Entry& entry, const std::string& label,
                                 const std::array<std::string_view, N>& allowed_keys) {
    const std::uint32_t line = entry.position.line;
    const toml::table* table = entry.node->as_table();
    if (table == nullptr) {
      fail(line, label,
           fmt::format("an entry must be a table (a [{}] header or an inline {{ ... }}), "
                       "not {}",
                       label, type_name(*entry.node)));
    }
    if (!is_identifier(entry.key)) {
      fail(line, label,
           fmt::format("'{}' is not a valid C++ identifier (letters, digits and '_', not "
                       "starting with a digit, not a keyword); the entry's name is the "
                       "function's name",
                       entry.key));
    }
    const auto [previous, inserted] =
        first_use_.emplace(std::string(entry.key), std::make_pair(label, line));
    if (!inserted) {
      fail(line, label,
           fmt::format("the name '{}' is already defined by {} (line {}); helpers and ufuncs "
                       "share one namespace",
                       entry.key, previous->second.first, previous->second.second));
    }
    for (const Entry& key : entries_in_file_order(*table)) {
      if (std::find(allowed_keys.begin(), allowed_keys.end(), key.key) != allowed_keys.end()) {
        continue;
      }
      const auto hint = closest(key.key, allowed_keys);
      fail(key.position.line, label,
           fmt::format("unknown key '{}' ({})", key.key,
                       hint ? fmt::format("did you mean '{}'?", *hint)
                            : fmt::format("allowed: {}", quoted_list(allowed_keys))));
    }
    return *table;
  }

  // The entry's `source`, which must be a non-blank string, and the line its first line is on.
  std::pair<std::string, SourceOrigin> read_source(const Entry& entry, const toml::table& table,
                                                   const std::string& label) const {
    const toml::node* node = table.get("source");
    if (node == nullptr) fail(entry.position.line, label, "missing 'source'");
    const auto* source = node->as_string();
    if (source == nullptr) {
      fail(node->source().begin.line, label,
           fmt::format("'source' must be a string, not {}", type_name(*node)));
    }
    const std::string& text = source->get();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      fail(node->source().begin.line, label, "'source' is empty");
    }
    return {text, SourceOrigin{file_, first_source_line(*node)}};
  }

  // The strings of an array value, each with its line; a `required` array must exist, and
  // no array may be empty.
  std::vector<StringItem> read_string_array(const Entry& entry, const toml::table& table,
                                            const std::string& label, std::string_view key,
                                            bool required) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (required) fail(entry.position.line, label, fmt::format("missing '{}'", key));
      return {};
    }
    const std::uint32_t line = node->source().begin.line;
    const toml::array* array = node->as_array();
    if (array == nullptr) {
      fail(line, label,
           fmt::format("'{}' must be an array of strings, not {}", key, type_name(*node)));
    }
    if (array->empty()) fail(line, label, fmt::format("'{}' is empty", key));
    std::vector<StringItem> items;
    for (const toml::node& element : *array) {
      const auto* string = element.as_string();
      if (string == nullptr) {
        fail(element.source().begin.line, label,
             fmt::format("'{}' must be an array of strings; it holds {}", key,
                         type_name(element)));
      }
      items.push_back(StringItem{string->get(), element.source().begin.line});
    }
    return items;
  }

  // [gufuncs.NAME] entries: `signatures` (strings), `layout` (a string) and `source`.
  void parse_gufuncs(const Entry& top) {
    const toml::table* group = top.node->as_table();
    if (group == nullptr) {
      fail(top.position.line, "",
           fmt::format("'{}' must be a table of entries ([{}.NAME]), not {}", top.key, top.key,
                       type_name(*top.node)));
    }
    for (const Entry& entry : entries_in_file_order(*group)) {
      const std::string label = fmt::format("{}.{}", kGufuncsTable, entry.key);
      const toml::table& table = check_entry(entry, label, kGufuncKeys);
      std::vector<std::string> signatures;
      for (StringItem& item :
           read_string_array(entry, table, label, "signatures", /*required=*/true)) {
        signatures.push_back(std::move(item.value));
      }
      const toml::node* layout = table.get("layout");
      if (layout == nullptr) fail(entry.position.line, label, "missing 'layout' (as \"(n),(n)->()\")");
      if (!layout->is_string()) {
        fail(layout->source().begin.line, label,
             fmt::format("'layout' must be a string, not {}", type_name(*layout)));
      }
      auto [source, origin] = read_source(entry, table, label);
      result_.gufuncs.push_back(GufuncDefinition{std::string(entry.key), std::move(signatures),
                                                 layout->as_string()->get(), std::move(source),
                                                 std::move(origin)});
    }
  }

  void parse_helper(const Entry& entry) {
    const std::string label = fmt::format("{}.{}", kHelpersTable, entry.key);
    const toml::table& table = check_entry(entry, label, kHelperKeys);
    auto [source, origin] = read_source(entry, table, label);
    result_.helpers.push_back(
        HelperDefinition{std::string(entry.key), std::move(source), std::move(origin)});
  }

  void parse_ufunc(const Entry& entry) {
    const std::string label = fmt::format("{}.{}", kUfuncsTable, entry.key);
    const toml::table& table = check_entry(entry, label, kUfuncKeys);
    std::vector<std::string> signatures;
    for (StringItem& item :
         read_string_array(entry, table, label, "signatures", /*required=*/true)) {
      signatures.push_back(std::move(item.value));
    }
    std::vector<std::string> targets = read_targets(entry, table, label);
    auto [source, origin] = read_source(entry, table, label);
    result_.ufuncs.push_back(UfuncDefinition{std::string(entry.key), std::move(signatures),
                                             std::move(source), std::move(targets),
                                             std::move(origin), std::nullopt, {}});
    read_reduction_keys(table, label, result_.ufuncs.back());
    if (const toml::node* node = table.get("fastmath")) {
      const auto* flag = node->as_boolean();
      if (!flag) {
        fail(node->source().begin.line, label,
             fmt::format("'fastmath' must be true or false, not {}", type_name(*node)));
      }
      result_.ufuncs.back().fastmath = flag->get();
    }
    if (const toml::node* node = table.get("ranges")) result_.ufuncs.back().ranges = read_ranges(*node, label);
  }

  // `ranges`: a table of input name = [low, high] (two finite numbers, low <= high). The names
  // are checked against the source's parameters by the engine.
  std::vector<RangeDefinition> read_ranges(const toml::node& node, const std::string& label) const {
    const toml::table* ranges = node.as_table();
    if (ranges == nullptr) {
      fail(node.source().begin.line, label,
           fmt::format("'ranges' must be a table of input = [low, high] ([{}.ranges], then x = [-10, 10]), "
                       "not {}",
                       label, type_name(node)));
    }
    std::vector<RangeDefinition> result;
    for (const Entry& entry : entries_in_file_order(*ranges)) {
      const toml::array* bounds = entry.node->as_array();
      double values[2] = {0, 0};
      bool numbers = bounds != nullptr && bounds->size() == 2;
      for (std::size_t k = 0; numbers && k < 2; ++k) {
        const toml::node& bound = *bounds->get(k);
        if (const auto* i = bound.as_integer()) {
          values[k] = static_cast<double>(i->get());
        } else if (const auto* f = bound.as_floating_point()) {
          values[k] = f->get();
        } else {
          numbers = false;
        }
      }
      if (!numbers || !std::isfinite(values[0]) || !std::isfinite(values[1]) || !(values[0] <= values[1])) {
        fail(entry.position.line, label,
             fmt::format("ranges.{} must be [low, high], two finite numbers with low <= high (as [-10, 10])",
                         entry.key));
      }
      result.push_back(RangeDefinition{std::string(entry.key), values[0], values[1]});
    }
    return result;
  }

  // `identity`, exactly: a TOML integer (int64), float or bool, or a string holding an integer
  // beyond int64 that uint64 holds ("18446744073709551615", "0xffffffffffffffff"; a TOML
  // integer is at most 2^63 - 1).
  Scalar read_identity(const toml::node& node, const std::string& label) const {
    if (const auto* i = node.as_integer()) return Scalar(static_cast<std::int64_t>(i->get()));
    if (const auto* f = node.as_floating_point()) return Scalar(f->get());
    if (const auto* b = node.as_boolean()) return Scalar(b->get());
    const std::uint32_t line = node.source().begin.line;
    const auto* text = node.as_string();
    if (text == nullptr) {
      fail(line, label, fmt::format("'identity' must be a number or a bool, not {}", type_name(node)));
    }
    const std::string& digits = text->get();
    const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    const char* first = digits.c_str() + (hex ? 2 : 0);
    const bool only_digits =
        *first != '\0' && std::all_of(first, digits.c_str() + digits.size(), [hex](char c) {
          return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        });
    errno = 0;
    const unsigned long long value = only_digits ? std::strtoull(first, nullptr, hex ? 16 : 10) : 0;
    if (!only_digits || errno == ERANGE) {
      fail(line, label,
           fmt::format("'identity' = \"{}\": a string identity must hold an unsigned integer that "
                       "fits uint64 (decimal or 0x hex, as \"18446744073709551615\"); numbers "
                       "that TOML holds are written without quotes",
                       digits));
    }
    return Scalar(static_cast<std::uint64_t>(value));
  }

  // The entry's optional `identity` and `methods` (known method names, each once).
  void read_reduction_keys(const toml::table& table, const std::string& label, UfuncDefinition& def) const {
    if (const toml::node* node = table.get("identity")) def.identity = read_identity(*node, label);
    Entry none{};
    for (StringItem& item : read_string_array(none, table, label, "methods", /*required=*/false)) {
      if (std::find(kMethodNames.begin(), kMethodNames.end(), item.value) == kMethodNames.end()) {
        fail(item.line, label, fmt::format("unknown method '{}' (methods are {})", item.value,
                                           quoted_list(kMethodNames)));
      }
      if (std::find(def.methods.begin(), def.methods.end(), item.value) != def.methods.end()) {
        fail(item.line, label, fmt::format("method '{}' is listed twice", item.value));
      }
      def.methods.push_back(std::move(item.value));
    }
  }

  // The entry's optional `targets`: known target names, each once.
  std::vector<std::string> read_targets(const Entry& entry, const toml::table& table,
                                        const std::string& label) const {
    std::vector<std::string> targets;
    for (StringItem& item : read_string_array(entry, table, label, "targets", /*required=*/false)) {
      if (std::find(kTargetNames.begin(), kTargetNames.end(), item.value) == kTargetNames.end()) {
        fail(item.line, label,
             fmt::format("unknown target '{}' (targets are {})", item.value,
                         quoted_list(kTargetNames)));
      }
      if (std::find(targets.begin(), targets.end(), item.value) != targets.end()) {
        fail(item.line, label, fmt::format("target '{}' is listed twice", item.value));
      }
      targets.push_back(std::move(item.value));
    }
    return targets;
  }

  void parse_fusion(const Entry& entry) {
    const std::string label = fmt::format("{}.{}", kFusionsTable, entry.key);
    const toml::table& table = check_entry(entry, label, kFusionKeys);
    std::vector<std::string> targets = read_targets(entry, table, label);
    const toml::node* node = table.get("expression");
    if (node == nullptr) fail(entry.position.line, label, "missing 'expression'");
    const auto* expression = node->as_string();
    if (expression == nullptr) {
      fail(node->source().begin.line, label,
           fmt::format("'expression' must be a string, not {}", type_name(*node)));
    }
    result_.fusions.push_back(FusionDefinition{
        std::string(entry.key), expression->get(), std::move(targets),
        SourceOrigin{file_, static_cast<int>(node->source().begin.line)}});
  }

  // [derivatives.NAME]: `of` (a ufunc's name), `wrt` (an input's name or index), optional
  // `value` (a bool) and `targets`.
  void parse_derivative(const Entry& entry) {
    const std::string label = fmt::format("{}.{}", kDerivativesTable, entry.key);
    const toml::table& table = check_entry(entry, label, kDerivativeKeys);
    DerivativeDefinition def;
    def.name = std::string(entry.key);
    def.targets = read_targets(entry, table, label);
    const toml::node* of = table.get("of");
    if (of == nullptr) fail(entry.position.line, label, "missing 'of' (the ufunc to differentiate)");
    if (!of->is_string()) {
      fail(of->source().begin.line, label, fmt::format("'of' must be a ufunc's name (a string), not {}", type_name(*of)));
    }
    def.of = of->as_string()->get();
    const toml::node* wrt = table.get("wrt");
    if (wrt == nullptr) {
      fail(entry.position.line, label, "missing 'wrt' (the input: its parameter's name or its index from 0)");
    }
    if (const auto* index = wrt->as_integer()) {
      if (index->get() < 0 || index->get() > 1000) {
        fail(wrt->source().begin.line, label, fmt::format("'wrt' = {} is not an input's index (0 for the first)", index->get()));
      }
      def.wrt_index = static_cast<int>(index->get());
    } else if (const auto* name = wrt->as_string()) {
      def.wrt_name = name->get();
    } else {
      fail(wrt->source().begin.line, label,
           fmt::format("'wrt' must be an input's name (a string) or index (an integer), not {}", type_name(*wrt)));
    }
    if (const toml::node* node = table.get("value")) {
      const auto* flag = node->as_boolean();
      if (!flag) {
        fail(node->source().begin.line, label, fmt::format("'value' must be true or false, not {}", type_name(*node)));
      }
      def.value = flag->get();
    }
    def.origin = SourceOrigin{file_, static_cast<int>(entry.position.line)};
    result_.derivatives.push_back(std::move(def));
  }

  // The file line of a string value's first character: the value's own line, or the next one
  // when it is a multi-line string whose opening delimiter ends its line (TOML trims that
  // newline). toml++ gives the value's line and column (in code points, after any BOM).
  int first_source_line(const toml::node& value) const {
    const toml::source_position begin = value.source().begin;
    std::string_view rest = text_;
    if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
    for (std::uint32_t line = 1; line < begin.line; ++line) {
      rest.remove_prefix(std::min(rest.size(), rest.find('\n') + 1));
    }
    for (std::uint32_t column = 1; column < begin.column && !rest.empty(); ++column) {
      rest.remove_prefix(1);  // the code point's first byte, then its continuation bytes
      while (!rest.empty() && (static_cast<unsigned char>(rest.front()) & 0xC0) == 0x80) {
        rest.remove_prefix(1);
      }
    }
    const bool multi_line = rest.substr(0, 3) == "'''" || rest.substr(0, 3) == "\"\"\"";
    if (multi_line) {
      rest.remove_prefix(3);
      if (rest.substr(0, 1) == "\n" || rest.substr(0, 2) == "\r\n") {
        return static_cast<int>(begin.line) + 1;
      }
    }
    return static_cast<int>(begin.line);
  }

  std::string_view text_;
  std::string file_;
  DefinitionSet result_;
  // Each name defined so far: the entry that defined it and its line.
  std::map<std::string, std::pair<std::string, std::uint32_t>> first_use_;
};

}  // namespace

DefinitionSet parse_definition_text(std::string_view text, std::string file_name_for_messages) {
  if (text.size() > kMaxDefinitionFileSize) {
    throw DefinitionError(fmt::format(
        "{}: definition file is too large ({} bytes; at most {} MiB of definitions are read)",
        file_name_for_messages, text.size(), kMaxDefinitionFileSize >> 20));
  }
  return DefinitionParser(text, std::move(file_name_for_messages)).parse();
}

DefinitionSet parse_definition_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  // Only a regular file is read, and never more than one byte past the bound: a FIFO, a device
  // or a socket is refused without blocking on it, and a file's size is not trusted.
  detail::RegularFileRead read = detail::read_regular_file(file, kMaxDefinitionFileSize);
  if (!read.problem.empty()) {
    throw DefinitionError(fmt::format("{}: cannot read definition file: {}", name, read.problem));
  }
  if (read.contents.size() > kMaxDefinitionFileSize) {
    throw DefinitionError(fmt::format(
        "{}: definition file is too large (over {} MiB; definition files hold source text)",
        name, kMaxDefinitionFileSize >> 20));
  }
  DefinitionSet set = parse_definition_text(read.contents, name);
  if (set.helpers.empty() && set.ufuncs.empty() && set.gufuncs.empty() && set.fusions.empty() &&
      set.derivatives.empty()) {
    detail::log().warn("{}: the definition file defines nothing (no [{}.NAME], [{}.NAME], [{}.NAME], "
                       "[{}.NAME] or [{}.NAME] entry)",
                       name, kHelpersTable, kUfuncsTable, kGufuncsTable, kFusionsTable, kDerivativesTable);
  }
  return set;
}

}  // namespace jitvec::definitions
