// src/cache/cache_errors.hpp: the exceptions of the cache area.
//
// The disk cache itself never throws for a damaged entry or an I/O failure (it logs and
// misses); these are thrown by the pieces it is built from (parse()), by settings that do not
// parse, and by the inspection calls the `jitvec cache` command uses.
#pragma once

#include <string>
#include <string_view>

#include "jitvec/errors.hpp"

namespace jitvec::cache {

/// A problem of the cache area that is not a damaged entry: a cache setting that does not
/// parse, a key prefix that is malformed or matches several entries, an untrusted entry.
class CacheError : public jitvec::Error {
 public:
  using jitvec::Error::Error;
};

/// Bytes that are not a whole, valid entry. reason() says what is wrong and starts with one of
/// "truncated", "trailing bytes", "bad magic", "wrong format version N", "checksum mismatch",
/// "malformed", "unreadable"; what() also names where the bytes came from.
class DamagedEntry : public CacheError {
 public:
  DamagedEntry(std::string reason, std::string_view origin);
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string reason_;
};

}  // namespace jitvec::cache
