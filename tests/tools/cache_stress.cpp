// tests/tools/cache_stress.cpp: one of several processes hammering one cache folder at once.
//
//     cache_stress DIR ITERATIONS INDEX GO_FILE
//
// Waits until GO_FILE exists (so that every copy starts together), then ITERATIONS times loads
// a fixed key and stores a deterministic entry if the load missed; every fourth iteration
// (offset by INDEX) it stores again even after a hit, so that entries are replaced while other
// processes read them. Exits 0 only if every load that hit returned exactly the expected entry,
// no damaged entry was ever seen and storing stayed enabled; otherwise prints its counters.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "cache/disk_cache.hpp"

namespace {

using jitvec::cache::CacheEntry;
using jitvec::cache::CacheKey;

constexpr std::size_t kPayloadSize = 256 * 1024;
constexpr std::int64_t kCreated = 1700000000;
constexpr auto kGoTimeout = std::chrono::seconds(30);

CacheKey stress_key() {
  CacheKey key;
  key.add("target", "cpu");
  key.add("ufunc", "stress");
  key.add("source", "double stress(double x) { return x * 2.0; }");
  return key;
}

CacheEntry stress_entry(const CacheKey& key) {
  CacheEntry entry;
  entry.key_fields = key.fields();
  entry.created = kCreated;
  std::string bytes(kPayloadSize, '\0');
  std::uint32_t state = 12345;
  for (char& byte : bytes) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<char>(state >> 24);
  }
  entry.add_payload("blob", std::move(bytes));  // a kind the cache does not look into
  entry.add_payload(jitvec::cache::payload_kind::log, "stress log");
  return entry;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s DIR ITERATIONS INDEX GO_FILE\n", argv[0]);
    return 2;
  }
  const std::filesystem::path go_file = argv[4];
  const int iterations = std::atoi(argv[2]);
  const int index = std::atoi(argv[3]);

  jitvec::cache::CacheSettings settings;
  settings.dir = argv[1];
  jitvec::cache::DiskCache cache(settings);
  const CacheKey key = stress_key();
  const CacheEntry expected = stress_entry(key);

  const auto deadline = std::chrono::steady_clock::now() + kGoTimeout;
  while (!std::filesystem::exists(go_file)) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "process %d: %s never appeared\n", index, go_file.c_str());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  int wrong = 0;
  for (int i = 0; i < iterations; ++i) {
    const auto loaded = cache.load(key);
    if (loaded && *loaded != expected) ++wrong;
    if (!loaded || i % 4 == index % 4) cache.store(key, expected);
  }
  const auto stats = cache.stats();
  const bool correct = wrong == 0 && stats.damaged == 0 && cache.writable();
  if (correct) return 0;
  std::fprintf(
      stderr, "process %d: hits=%llu misses=%llu stores=%llu damaged=%llu wrong=%d writable=%d\n",
      index, static_cast<unsigned long long>(stats.hits),
      static_cast<unsigned long long>(stats.misses), static_cast<unsigned long long>(stats.stores),
      static_cast<unsigned long long>(stats.damaged), wrong, cache.writable() ? 1 : 0);
  return 1;
}
