// tests/tools/cache_key_print.cpp: prints the cache key digest of the fields on its command
// line, so that tests can check that a key is the same in another process.
//
//     cache_key_print TAG VALUE [TAG VALUE]...   ->  32 hex digits and a newline
#include <cstdio>

#include "cache/cache_key.hpp"

int main(int argc, char* argv[]) {
  if (argc % 2 != 1) {
    std::fprintf(stderr, "usage: %s TAG VALUE [TAG VALUE]...\n", argv[0]);
    return 2;
  }
  jitvec::cache::CacheKey key;
  for (int i = 1; i + 1 < argc; i += 2) key.add(argv[i], argv[i + 1]);
  std::printf("%s\n", key.hex().c_str());
  return 0;
}
