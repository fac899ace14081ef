// Host memory for new arrays (Array::empty(Memory::host), the results of host calls), at
// NumPy's cost or below.
//
// A fresh 64 MB block costs more than the loop that fills it: its first touch faults in 16384
// pages of 4 KB, about 25 ms on a 2-core machine, against 3 ms for a gaussian_pdf call into an
// existing out=. So, as NumPy does for blocks of 4 MB and more, large blocks are mapped on
// their own, aligned to 2 MB and advised as transparent huge pages (MADV_HUGEPAGE: 32 faults
// instead of 16384), and, as a caching allocator does, a large block an array no longer uses is
// kept for the next array of the same rounded size (the usual `y = f(x)` in a loop then touches
// no new page at all). What is kept is bounded: JITVEC_HOST_CACHE_BYTES (default 1 GiB, and no
// more than an eighth of physical memory; 0 keeps nothing), least recently freed given back
// first. Blocks below 4 MB come from malloc, 64-byte aligned. Nothing is zeroed by jitvec:
// every element of a new array is written by the call that makes it (a fresh mapping reads as
// zeros, a reused block as what it last held).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace jitvec::core {

/// Blocks of at least this many bytes are mapped on their own, as huge pages, and kept for reuse.
inline constexpr std::size_t kLargeHostBlock = std::size_t{4} << 20;

/// A block of at least `bytes` (0 allowed), 64-byte aligned, freed (or kept) when the last
/// owner lets go. Throws std::bad_alloc when the system has no memory for it.
std::shared_ptr<void> allocate_host_block(std::size_t bytes);

/// What the cache of large blocks holds now, for tests and diagnostics.
struct HostBlockCacheStats {
  std::size_t blocks = 0;
  std::size_t bytes = 0;
  std::size_t limit = 0;
  std::uint64_t reused = 0;  ///< allocations served from the cache since the process began
};
HostBlockCacheStats host_block_cache_stats();

/// Gives every kept block back to the system (munmap).
void release_cached_host_blocks();

}  // namespace jitvec::core
