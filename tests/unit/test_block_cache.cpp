// BlockCache's bookkeeping, without a GPU: size classes, reuse on the same stream only, the
// per-device limit, and draining one stream or all. (The GPU test "small output blocks are
// recycled on their own stream" checks the same through real ufunc calls.)
#include <cstdint>

#include "catch.hpp"
#include "cuda/block_cache.hpp"
#include "jitvec/device.hpp"

using jitvec::cuda::BlockCache;

namespace {

CUstream fake_stream(std::uintptr_t id) { return reinterpret_cast<CUstream>(id); }
void* fake_block(std::uintptr_t id) { return reinterpret_cast<void*>(id << 12); }

}  // namespace

TEST_CASE("block sizes are powers of two from 256 bytes up to 1 MiB, larger ones are not cached",
          "[block_cache]") {
  CHECK(BlockCache::block_size(1) == 256);
  CHECK(BlockCache::block_size(256) == 256);
  CHECK(BlockCache::block_size(257) == 512);
  CHECK(BlockCache::block_size(4096) == 4096);
  CHECK(BlockCache::block_size(4097) == 8192);
  CHECK(BlockCache::block_size(BlockCache::kMaxBlockBytes) == BlockCache::kMaxBlockBytes);
  CHECK(BlockCache::block_size(BlockCache::kMaxBlockBytes + 1) == 0);
}

TEST_CASE("a kept block is handed back only on its own stream and size", "[block_cache]") {
  BlockCache cache(2);
  const CUstream s1 = fake_stream(0x10), s2 = fake_stream(0x20);
  CHECK(cache.take(0, s1, 4096) == nullptr);
  REQUIRE(cache.keep(0, s1, fake_block(1), 4096));
  CHECK(cache.cached_bytes(0) == 4096);
  CHECK(cache.take(0, s2, 4096) == nullptr);    // another stream
  CHECK(cache.take(0, s1, 8192) == nullptr);    // another size
  CHECK(cache.take(1, s1, 4096) == nullptr);    // another device
  CHECK(cache.take(0, s1, 4096) == fake_block(1));
  CHECK(cache.take(0, s1, 4096) == nullptr);    // taken once only
  CHECK(cache.cached_bytes(0) == 0);
  CHECK(cache.take(7, s1, 4096) == nullptr);    // a device that does not exist
  CHECK_FALSE(cache.keep(-1, s1, fake_block(2), 4096));
}

TEST_CASE("the cache holds at most its per-device limit", "[block_cache]") {
  BlockCache cache(1);
  const std::size_t block = BlockCache::kMaxBlockBytes;
  const std::size_t fit = BlockCache::kMaxCachedBytesPerDevice / block;
  for (std::size_t i = 0; i < fit; ++i) REQUIRE(cache.keep(0, nullptr, fake_block(i + 1), block));
  CHECK_FALSE(cache.keep(0, nullptr, fake_block(fit + 1), block));
  CHECK(cache.cached_bytes(0) == BlockCache::kMaxCachedBytesPerDevice);
}

TEST_CASE("drain returns one stream's blocks or every block", "[block_cache]") {
  BlockCache cache(1);
  const CUstream s1 = fake_stream(0x10), s2 = fake_stream(0x20);
  REQUIRE(cache.keep(0, s1, fake_block(1), 256));
  REQUIRE(cache.keep(0, s1, fake_block(2), 1024));
  REQUIRE(cache.keep(0, s2, fake_block(3), 256));
  const auto first = cache.drain(0, s1);
  REQUIRE(first.size() == 2);
  for (const auto& b : first) CHECK(b.stream == s1);
  CHECK(cache.cached_bytes(0) == 256);
  CHECK(cache.take(0, s1, 256) == nullptr);
  const auto rest = cache.drain(0, std::nullopt);
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].pointer == fake_block(3));
  CHECK(rest[0].bytes == 256);
  CHECK(cache.cached_bytes(0) == 0);
}

TEST_CASE("releasing cached memory is harmless anywhere, a machine without a GPU included",
          "[block_cache]") {
  jitvec::release_cached_memory();
  jitvec::release_cached_memory(jitvec::Stream{}, 0);
  jitvec::release_cached_memory(jitvec::Stream{}, 99);  // no such device: nothing to release
  SUCCEED("no exception, no crash");
}
