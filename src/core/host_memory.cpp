#include "core/host_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <list>
#include <mutex>
#include <new>
#include <utility>

#include "core/log.hpp"

namespace jitvec::core {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kDefaultCacheLimit = std::size_t{1} << 30;

std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// JITVEC_HOST_CACHE_BYTES, else 1 GiB; never more than an eighth of physical memory.
std::size_t cache_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const std::size_t eighth = pages > 0 && page_size > 0
                                 ? static_cast<std::size_t>(pages) / 8 * static_cast<std::size_t>(page_size)
                                 : kDefaultCacheLimit;
  std::size_t limit = kDefaultCacheLimit;
  if (const char* env = std::getenv("JITVEC_HOST_CACHE_BYTES"); env && *env) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(env, &end, 10);
    if (*end == '\0' && errno == 0 && env[0] != '-') {
      limit = static_cast<std::size_t>(value);
    } else {
      detail::warn_once("JITVEC_HOST_CACHE_BYTES",
                        fmt::format("JITVEC_HOST_CACHE_BYTES='{}' is not a number of bytes; keeping "
                                    "up to {} bytes of freed host arrays for reuse",
                                    env, std::min(kDefaultCacheLimit, eighth)));
    }
  }
  return std::min(limit, eighth);
}

// A mapping of `size` bytes (a multiple of kHugePage) starting on a 2 MB boundary, advised as
// huge pages; null when the system has no memory for it.
void* map_large(std::size_t size) {
  const std::size_t padded = size + kHugePage;
  void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = round_up(start, kHugePage);
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = aligned + size;
  if (start + padded > tail) ::munmap(reinterpret_cast<void*>(tail), start + padded - tail);
  void* block = reinterpret_cast<void*>(aligned);
  // Advice only: where transparent huge pages are off, the block works with small pages.
  (void)::madvise(block, size, MADV_HUGEPAGE);
  return block;
}

// Freed large blocks, least recently freed first. Exact sizes only (sizes are rounded to 2 MB):
// a block is never handed out for a smaller array, whose caller would then hold memory it
// cannot see.
class LargeBlockCache {
 public:
  void* take(std::size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {  // the most recent first: warm
      if (it->first != size) continue;
      void* block = it->second;
      bytes_ -= size;
      blocks_.erase(std::next(it).base());
      ++reused_;
      return block;
    }
    return nullptr;
  }

  void give(void* block, std::size_t size) {
    std::list<std::pair<std::size_t, void*>> unmapped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (size > limit_) {
        unmapped.emplace_back(size, block);
      } else {
        blocks_.emplace_back(size, block);
        bytes_ += size;
        while (bytes_ > limit_) {
          bytes_ -= blocks_.front().first;
          unmapped.splice(unmapped.end(), blocks_, blocks_.begin());
        }
      }
    }
    for (const auto& [bytes, p] : unmapped) ::munmap(p, bytes);  // outside the lock
  }

  void release() {
    std::list<std::pair<std::size_t, void*>> unmapped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      unmapped.swap(blocks_);
      bytes_ = 0;
    }
    for (const auto& [bytes, p] : unmapped) ::munmap(p, bytes);
  }

  HostBlockCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {blocks_.size(), bytes_, limit_, reused_};
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<std::size_t, void*>> blocks_;
  std::size_t bytes_ = 0;
  const std::size_t limit_ = cache_limit();
  std::uint64_t reused_ = 0;
};

// Never destroyed: arrays freed by other static destructors at exit still find it.
LargeBlockCache& large_blocks() {
  static LargeBlockCache* cache = new LargeBlockCache();
  return *cache;
}

}  // namespace

std::shared_ptr<void> allocate_host_block(std::size_t bytes) {
  if (bytes < kLargeHostBlock) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  }
  if (bytes > SIZE_MAX - 2 * kHugePage) throw std::bad_alloc();
  const std::size_t size = round_up(bytes, kHugePage);
  LargeBlockCache& cache = large_blocks();
  void* block = cache.take(size);
  if (!block) block = map_large(size);
  if (!block) {  // the system may have had memory only for what the cache held
    cache.release();
    block = map_large(size);
  }
  if (!block) throw std::bad_alloc();
  return std::shared_ptr<void>(block, [size, &cache](void* q) { cache.give(q, size); });
}

HostBlockCacheStats host_block_cache_stats() { return large_blocks().stats(); }

void release_cached_host_blocks() { large_blocks().release(); }

}  // namespace jitvec::core
