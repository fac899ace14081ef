#include "cuda/block_cache.hpp"


#include "cuda/device.hpp"

namespace jitvec::cuda {

BlockCache::BlockCache(int device_count)
    : devices_(new DeviceCache[static_cast<std::size_t>(device_count > 0 ? device_count : 1)]),
      device_count_(device_count) {}

std::size_t BlockCache::block_size(std::size_t bytes) {
  if (bytes > kMaxBlockBytes) return 0;
  if (bytes <= kMinBlockBytes) return kMinBlockBytes;
  return std::size_t{1} << (64 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1)));
}

BlockCache::FreeList* BlockCache::find(DeviceCache& cache, CUstream stream,
                                       std::size_t block_bytes) {
  for (FreeList& list : cache.lists) {
    if (list.stream == stream && list.block_bytes == block_bytes) return &list;
  }
  return nullptr;
}

void* BlockCache::take(int device, CUstream stream, std::size_t block_bytes) {
  if (device < 0 || device >= device_count_) return nullptr;
  DeviceCache& cache = devices_[static_cast<std::size_t>(device)];
  std::lock_guard<SpinLock> lock(cache.mutex);
  FreeList* list = find(cache, stream, block_bytes);
  if (!list || list->blocks.empty()) return nullptr;
  void* pointer = list->blocks.back();
  list->blocks.pop_back();
  cache.bytes -= block_bytes;
  return pointer;
}

bool BlockCache::keep(int device, CUstream stream, void* pointer, std::size_t block_bytes) {
  if (device < 0 || device >= device_count_) return false;
  DeviceCache& cache = devices_[static_cast<std::size_t>(device)];
  std::lock_guard<SpinLock> lock(cache.mutex);
  if (cache.bytes + block_bytes > kMaxCachedBytesPerDevice) return false;
  FreeList* list = find(cache, stream, block_bytes);
  if (!list) {
    cache.lists.push_back(FreeList{stream, block_bytes, {}});
    list = &cache.lists.back();
  }
  list->blocks.push_back(pointer);
  cache.bytes += block_bytes;
  return true;
}

std::vector<BlockCache::Block> BlockCache::drain(int device, std::optional<CUstream> stream) {
  std::vector<Block> drained;
  if (device < 0 || device >= device_count_) return drained;
  DeviceCache& cache = devices_[static_cast<std::size_t>(device)];
  std::lock_guard<SpinLock> lock(cache.mutex);
  for (FreeList& list : cache.lists) {
    if (stream && list.stream != *stream) continue;
    for (void* pointer : list.blocks) drained.push_back(Block{pointer, list.block_bytes, list.stream});
    cache.bytes -= list.blocks.size() * list.block_bytes;
    list.blocks.clear();
  }
  return drained;
}

std::size_t BlockCache::cached_bytes(int device) const {
  if (device < 0 || device >= device_count_) return 0;
  const DeviceCache& cache = devices_[static_cast<std::size_t>(device)];
  std::lock_guard<SpinLock> lock(cache.mutex);
  return cache.bytes;
}

BlockCache& block_cache() {
  static BlockCache* const cache = new BlockCache(device_count());
  return *cache;
}

}  // namespace jitvec::cuda
