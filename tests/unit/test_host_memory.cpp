// tests/unit/test_host_memory.cpp: host memory for new arrays (core/host_memory.hpp): small
// blocks 64-byte aligned, large ones on 2 MB boundaries, a freed large block reused for the
// next array of its rounded size (and only of that size), the cache bounded, and a call whose
// result lands in a reused block (holding NaN from its last use) writes every element.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "catch.hpp"
#include "core/host_memory.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::uintptr_t address(const std::shared_ptr<void>& block) { return reinterpret_cast<std::uintptr_t>(block.get()); }

}  // namespace

TEST_CASE("host blocks: alignment, and the whole block is usable", "[host_memory]") {
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4095},
                                  core::kLargeHostBlock - 1, core::kLargeHostBlock,
                                  core::kLargeHostBlock + 12345, std::size_t{9} << 20}) {
    INFO("bytes = " << bytes);
    const std::shared_ptr<void> block = core::allocate_host_block(bytes);
    REQUIRE(block != nullptr);
    CHECK(address(block) % 64 == 0);
    if (bytes >= core::kLargeHostBlock) CHECK(address(block) % (std::size_t{2} << 20) == 0);
    std::memset(block.get(), 0x5A, bytes);  // every byte asked for can be written
    if (bytes > 0) CHECK(static_cast<unsigned char*>(block.get())[bytes - 1] == 0x5A);
  }
}

TEST_CASE("host blocks: a freed large block serves the next array of its rounded size only",
          "[host_memory]") {
  core::release_cached_host_blocks();
  const std::size_t bytes = (std::size_t{8} << 20) + 100;  // rounds to 10 MB
  std::uintptr_t first = 0;
  {
    const std::shared_ptr<void> block = core::allocate_host_block(bytes);
    first = address(block);
  }
  const core::HostBlockCacheStats kept = core::host_block_cache_stats();
  REQUIRE(kept.limit >= (std::size_t{10} << 20));  // the default limit holds one such block
  CHECK(kept.blocks == 1);
  CHECK(kept.bytes == (std::size_t{10} << 20));
  {
    // Another rounded size does not take it.
    const std::shared_ptr<void> other = core::allocate_host_block(std::size_t{6} << 20);
    CHECK(address(other) != first);
  }
  const std::uint64_t reused_before = core::host_block_cache_stats().reused;
  const std::shared_ptr<void> again = core::allocate_host_block((std::size_t{9} << 20) + 5);  // also 10 MB
  CHECK(address(again) == first);
  CHECK(core::host_block_cache_stats().reused == reused_before + 1);
  core::release_cached_host_blocks();
  CHECK(core::host_block_cache_stats().blocks == 0);
}

TEST_CASE("host blocks: what is kept stays within the limit, oldest given back first",
          "[host_memory]") {
  core::release_cached_host_blocks();
  const std::size_t limit = core::host_block_cache_stats().limit;
  const std::size_t block_bytes = std::size_t{64} << 20;
  const std::size_t count = limit / block_bytes + 2;  // more than the limit holds
  {
    std::vector<std::shared_ptr<void>> blocks;
    for (std::size_t i = 0; i < count; ++i) blocks.push_back(core::allocate_host_block(block_bytes));
  }  // all freed: the cache keeps what fits
  const core::HostBlockCacheStats kept = core::host_block_cache_stats();
  CHECK(kept.bytes <= limit);
  CHECK(kept.blocks == limit / block_bytes);
  core::release_cached_host_blocks();
}

TEST_CASE("an allocating host call into a reused block writes every element", "[host_memory][ufunc]") {
  Engine& engine = shared_engine();
  define_test_ufuncs(engine);
  const std::int64_t n = (std::int64_t{3} << 20) + 7;  // 12 MB of float32: a large block
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  for (const Target where : {Target::cpu, Target::parallel}) {
    INFO("target " << (where == Target::cpu ? "cpu" : "parallel"));
    core::release_cached_host_blocks();
    {  // a block of the result's rounded size, full of NaN, freed into the cache
      const std::shared_ptr<void> poison = core::allocate_host_block(bytes);
      float* p = static_cast<float*>(poison.get());
      for (std::int64_t i = 0; i < n; ++i) p[i] = std::numeric_limits<float>::quiet_NaN();
    }
    REQUIRE(core::host_block_cache_stats().blocks == 1);
    std::mt19937 rng(static_cast<unsigned>(n) + (where == Target::cpu ? 1u : 2u));
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = dist(rng);
    const std::uint64_t reused_before = core::host_block_cache_stats().reused;
    const Array y = engine.ufunc("gauss")(from_vector(x), 0.5f, 1.5f, target(where));
    CHECK(core::host_block_cache_stats().reused == reused_before + 1);  // it did land there
    const float* got = static_cast<const float*>(y.data());
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double want = ref_gauss({x[static_cast<std::size_t>(i)], 0.5, 1.5});
      bad += !(std::fabs(got[i] - want) <= 1e-6 + 1e-5 * std::fabs(want));
    }
    CHECK(bad == 0);
  }
}
