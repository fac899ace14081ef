// tests/fuzz/fuzz_signature.cpp: libFuzzer target for jitvec::Signature::parse.
//
// Any text either parses, and then prints as text that parses back to the same signature,
// or is refused with jitvec::Error. Anything else (a crash, a sanitizer report, another
// exception, a failed round trip) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "jitvec/errors.hpp"
#include "jitvec/signature.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  jitvec::Signature sig;
  try {
    sig = jitvec::Signature::parse(text);
  } catch (const jitvec::Error&) {
    return 0;
  }
  const std::string printed = sig.to_string();
  jitvec::Signature again;
  try {
    again = jitvec::Signature::parse(printed);
  } catch (const jitvec::Error& e) {
    std::fprintf(stderr, "round trip: '%s' does not parse: %s\n", printed.c_str(), e.what());
    std::abort();
  }
  if (!(again == sig) || again.to_string() != printed) {
    std::fprintf(stderr, "round trip: '%s' parses as '%s'\n", printed.c_str(),
                 again.to_string().c_str());
    std::abort();
  }
  return 0;
}
