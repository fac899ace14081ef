// tests/fuzz/fuzz_definitions.cpp: libFuzzer target for the definition-file loader
// (definitions::parse_definition_text, the TOML text of a definition file).
//
// Any text either loads, and then every entry has a non-empty identifier name and source and
// at least one signature, each signature string either parsing or being refused with
// jitvec::Error (what Engine::load_definitions does next); or the text is refused with
// jitvec::Error (DefinitionError). Anything else is a finding: a crash, a sanitizer report,
// another exception type (a toml++ exception escaping, std::bad_alloc, ...).
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "definitions/definition_file.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/signature.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& name) {
  std::fprintf(stderr, "loaded definition '%s': %s\n", name.c_str(), what);
  std::abort();
}

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  jitvec::definitions::DefinitionSet set;
  try {
    set = jitvec::definitions::parse_definition_text(text, "fuzz.toml");
  } catch (const jitvec::Error&) {
    return 0;
  }
  for (const auto& helper : set.helpers) {
    if (!is_identifier(helper.name)) finding("helper name is not an identifier", helper.name);
    if (helper.source.empty()) finding("helper with an empty source", helper.name);
    if (helper.origin.line < 1) finding("helper source line below 1", helper.name);
  }
  for (const auto& ufunc : set.ufuncs) {
    if (!is_identifier(ufunc.name)) finding("ufunc name is not an identifier", ufunc.name);
    if (ufunc.source.empty()) finding("ufunc with an empty source", ufunc.name);
    if (ufunc.signatures.empty()) finding("ufunc without signatures", ufunc.name);
    if (ufunc.origin.line < 1) finding("ufunc source line below 1", ufunc.name);
    for (const auto& signature : ufunc.signatures) {
      try {
        jitvec::Signature::parse(signature);
      } catch (const jitvec::Error&) {
      }
    }
  }
  return 0;
}
