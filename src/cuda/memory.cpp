#include "cuda/memory.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <exception>

#include "core/log.hpp"
#include "cuda/block_cache.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/graph.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

CUdeviceptr device_address(const void* pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
}

// The ordinal of the device `pointer`'s memory lives on.
int device_of(const void* pointer) {
  int ordinal = 0;
  check(driver().pointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     device_address(pointer)),
        "cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)");
  return ordinal;
}

// Runs `call()`; when the driver refuses it because this thread has no current context, makes
// the primary context of the device `device()` names current and runs it again.
template <class Call, class Device>
CUresult in_some_context(Call call, Device device) {
  const CUresult result = call();
  if (result != CUDA_ERROR_INVALID_CONTEXT) return result;
  ContextGuard guard(device());
  return call();
}

// Runs a free's driver call; logs its failure unless the driver has already shut down (static
// destruction at exit). Never throws.
template <class Free>
void free_quietly(const char* call, const void* pointer, Free free) noexcept {
  try {
    const CUresult result = free();
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("{} of {} failed: {}", call, pointer, error_text(result));
    }
  } catch (const CudaError& error) {
    if (error.code() != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("{} of {}: {}", call, pointer, error.what());
    }
  } catch (const std::exception& error) {
    jitvec::detail::log().error("{} of {}: {}", call, pointer, error.what());
  } catch (...) {  // nothing more can be done from a noexcept free
  }
}

void copy(CUresult (*copier)(void*, const void*, std::size_t, CUstream), const char* call,
          const void* device_pointer, void* dst, const void* src, std::size_t bytes,
          CUstream stream) {
  if (bytes == 0) return;
  const CUresult result = in_some_context([&] { return copier(dst, src, bytes, stream); },
                                          [&] { return device_of(device_pointer); });
  if (result != CUDA_SUCCESS) {
    throw_error(result, fmt::format("{} of {} bytes from {} to {}", call, bytes, src,
                                    static_cast<const void*>(dst)));
  }
}

}  // namespace

void* alloc_async(int device, std::size_t bytes, CUstream stream) {
  if (bytes == 0) return nullptr;
  ContextGuard guard(device);
  CUdeviceptr address = 0;
  CUresult result = driver().memAllocAsync(&address, bytes, stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY && block_cache().cached_bytes(device) > 0) {
    release_recycled(device, nullptr);
    result = driver().memAllocAsync(&address, bytes, stream);
  }
  if (result != CUDA_SUCCESS) {
    const DeviceInfo& info = device_info(device);
    throw_error(result, fmt::format("cuMemAllocAsync of {} bytes on CUDA device {} ({}{})", bytes,
                                    device, info.name,
                                    info.memory_pools_supported
                                        ? ""
                                        : ", which has no stream-ordered memory pools"));
  }
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

void free_async(void* pointer, CUstream stream) noexcept {
  if (pointer == nullptr) return;
  free_quietly("cuMemFreeAsync", pointer, [&] {
    return in_some_context([&] { return driver().memFreeAsync(device_address(pointer), stream); },
                           [&] { return device_of(pointer); });
  });
}

void* alloc_recycled(int device, std::size_t bytes, CUstream stream) {
  if (bytes == 0) return nullptr;
  if (stream != nullptr && is_capturing(stream)) {
    // A cached block (or a graph memory node that would end up in the cache when freed) would
    // be written by every replay of the graph while later work reuses it.
    throw ArgumentError(fmt::format(
        "a device allocation of {} bytes on stream {}, which is being captured into a CUDA graph "
        "(cuStreamBeginCapture, CuPy's or PyTorch's graph capture): jitvec allocates nothing "
        "inside a capture; allocate the arrays before it and give every ufunc call out=, or "
        "capture with jitvec::capture",
        bytes, static_cast<const void*>(stream)));
  }
  const std::size_t block = BlockCache::block_size(bytes);
  if (block != 0) {
    if (void* pointer = block_cache().take(device, stream, block)) return pointer;
  }
  return alloc_async(device, block != 0 ? block : bytes, stream);
}

void free_recycled(int device, void* pointer, std::size_t bytes, CUstream stream) noexcept {
  if (pointer == nullptr) return;
  const std::size_t block = BlockCache::block_size(bytes);
  try {
    if (block != 0 && block_cache().keep(device, stream, pointer, block)) return;
    ContextGuard guard(device);
    free_async(pointer, stream);
  } catch (...) {  // the free list could not grow, or the context could not be made current
    free_async(pointer, stream);
  }
}

void release_recycled(int device, const CUstream* only_stream) noexcept {
  std::vector<BlockCache::Block> blocks;
  try {
    blocks = block_cache().drain(device, only_stream ? std::optional<CUstream>(*only_stream)
                                                     : std::nullopt);
  } catch (...) {
    return;  // nothing was removed
  }
  if (blocks.empty()) return;
  try {
    ContextGuard guard(device);
    for (const BlockCache::Block& block : blocks) free_async(block.pointer, block.stream);
  } catch (...) {
    for (const BlockCache::Block& block : blocks) free_async(block.pointer, block.stream);
  }
}

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, CUstream stream) {
  copy(
      [](void* to, const void* from, std::size_t n, CUstream s) {
        return driver().memcpyHtoDAsync(device_address(to), from, n, s);
      },
      "cuMemcpyHtoDAsync", dst, dst, src, bytes, stream);
}

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, CUstream stream) {
  copy(
      [](void* to, const void* from, std::size_t n, CUstream s) {
        return driver().memcpyDtoHAsync(to, device_address(from), n, s);
      },
      "cuMemcpyDtoHAsync", src, dst, src, bytes, stream);
}

void copy_device_to_device(void* dst, const void* src, std::size_t bytes, CUstream stream) {
  copy(
      [](void* to, const void* from, std::size_t n, CUstream s) {
        return driver().memcpyDtoDAsync(device_address(to), device_address(from), n, s);
      },
      "cuMemcpyDtoDAsync", dst, dst, src, bytes, stream);
}

void* alloc_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const Driver& d = driver();
  void* pointer = nullptr;
  const CUresult result =
      in_some_context([&] { return d.memHostAlloc(&pointer, bytes, CU_MEMHOSTALLOC_PORTABLE); },
                      [] { return 0; });
  if (result != CUDA_SUCCESS) {
    throw_error(result, fmt::format("cuMemHostAlloc of {} bytes of pinned host memory", bytes));
  }
  return pointer;
}

void free_pinned(void* pointer) noexcept {
  if (pointer == nullptr) return;
  free_quietly("cuMemFreeHost", pointer, [&] {
    return in_some_context([&] { return driver().memFreeHost(pointer); }, [] { return 0; });
  });
}

bool is_device_pointer(const void* pointer) noexcept {
  if (pointer == nullptr || !driver_available()) return false;
  unsigned int memory_type = 0;
  const CUresult result = driver().pointerGetAttribute(
      &memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, device_address(pointer));
  return result == CUDA_SUCCESS && memory_type == CU_MEMORYTYPE_DEVICE;
}

void synchronize(CUstream stream) {
  check(driver().streamSynchronize(stream), "cuStreamSynchronize");
}

}  // namespace jitvec::cuda
