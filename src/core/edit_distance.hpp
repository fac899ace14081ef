// src/core/edit_distance.hpp: how far apart two names are, for "did you mean" hints.
//
// Levenshtein distance (insertions, deletions, substitutions of one character each), used by
// the error messages that suggest a defined name close to a misspelt one (Engine::ufunc, the
// definition-file reader).
#pragma once

#include <cstddef>
#include <string_view>

namespace jitvec::detail {

std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace jitvec::detail
