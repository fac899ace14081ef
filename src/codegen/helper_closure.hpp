// src/codegen/helper_closure.hpp: which device-function helpers a ufunc uses.
//
// A helper is used when its name appears as an identifier (outside comments and string
// literals) in the ufunc's source or in the source of a helper it uses, transitively.
// helpers_used() returns them in an order where each helper comes after the helpers it calls
// (alphabetical order breaks ties, so the text, and so the cache key, is stable): the
// generated source declares every helper before its use. Mutual
// recursion between helpers is reported as a DefinitionError (CUDA would need forward
// declarations that we cannot write for the user).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

struct HelperSource {
  std::string name;
  std::string source;
  std::string origin_file;  // for #line; empty: "helper:<name>"
  int origin_line = 1;
  std::string origin_path;  // the definition file as the user gave it, for messages only
};

/// Identifiers in C++ source text, skipping comments, string and character literals.
std::set<std::string> identifiers_in(std::string_view source);

/// The helpers (from `registry`, keyed by name) that `source` uses, dependencies first.
std::vector<const HelperSource*> helpers_used(std::string_view source,
                                              const std::map<std::string, HelperSource>& registry);

}  // namespace jitvec::codegen
