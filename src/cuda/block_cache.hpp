// src/cuda/block_cache.hpp: small device blocks recycled per (device, stream) without a driver
// call.
//
// A cached ufunc call on small device arrays allocates its output and, when the caller drops
// it, frees it: with cuMemAllocAsync / cuMemFreeAsync that is two driver calls per call, as
// long as the launch itself. BlockCache keeps freed blocks of up to kMaxBlockBytes, rounded up
// to a power of two, in a free list per (device, stream, size) and hands them back to the next
// request on the SAME stream. That is exactly as safe as the stream-ordered pool's own reuse:
// work queued on a stream runs in order, so a later kernel on that stream cannot start before
// the earlier users of the block have finished. Blocks are never handed to another stream.
// (PyTorch's caching allocator and CuPy's memory pool work the same way.)
//
// The cache holds at most kMaxCachedBytesPerDevice per device; a block that does not fit is
// freed to the pool as before. drain() empties it (all streams, or one: a stream's blocks must
// go back before the stream is destroyed; see jitvec::release_cached_memory()).
//
// Thread-safe: one lock per device, held for a few list operations (a spin lock that yields:
// a pthread mutex's lock and unlock were a fifth of the cache's cost on a cached call). It
// never calls the driver; memory.hpp does, around it.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace jitvec::cuda {

class BlockCache {
 public:
  static constexpr std::size_t kMinBlockBytes = 256;
  static constexpr std::size_t kMaxBlockBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxCachedBytesPerDevice = std::size_t{64} << 20;

  struct Block {
    void* pointer;
    std::size_t bytes;
    CUstream stream;
  };

  explicit BlockCache(int device_count);

  /// The size a request for `bytes` is served with (its power-of-two class), or 0 when it is
  /// too large to cache (it then goes straight to the pool).
  static std::size_t block_size(std::size_t bytes);

  /// A block of exactly `block_bytes` (a block_size()) last used on `stream`, or null.
  void* take(int device, CUstream stream, std::size_t block_bytes);
  /// Keeps a block for `stream`; false when the device's cache is full (the caller frees it).
  bool keep(int device, CUstream stream, void* pointer, std::size_t block_bytes);
  /// Removes and returns the cached blocks of `device`: all, or only those of `stream`.
  std::vector<Block> drain(int device, std::optional<CUstream> stream);
  /// Bytes held for `device`.
  std::size_t cached_bytes(int device) const;

 private:
  struct FreeList {
    CUstream stream;
    std::size_t block_bytes;
    std::vector<void*> blocks;
  };
  // A lock held for a few list operations: spins briefly, then yields the thread.
  class SpinLock {
   public:
    void lock() noexcept {
      for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
        while (locked_.load(std::memory_order_relaxed)) {
          if (++spins > 64) std::this_thread::yield();
        }
      }
    }
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

   private:
    std::atomic<bool> locked_{false};
  };
  struct DeviceCache {
    mutable SpinLock mutex;
    std::vector<FreeList> lists;
    std::size_t bytes = 0;
  };
  FreeList* find(DeviceCache& cache, CUstream stream, std::size_t block_bytes);

  std::unique_ptr<DeviceCache[]> devices_;
  int device_count_;
};

/// The process's cache, sized for every device the driver reports. Never destroyed: arrays
/// released during static destruction still reach it.
BlockCache& block_cache();

}  // namespace jitvec::cuda
