#include "cache/cache_errors.hpp"

#include <fmt/format.h>

namespace jitvec::cache {

DamagedEntry::DamagedEntry(std::string reason, std::string_view origin)
    : CacheError(fmt::format("damaged cache entry {}: {}", origin, reason)),
      reason_(std::move(reason)) {}

}  // namespace jitvec::cache
