// src/cuda/memory.hpp: device and pinned host memory, and the copies between them.
//
// Device memory comes from the device's default stream-ordered pool (cuMemAllocAsync), which
// the primary context's first retain set to keep freed memory, so the temporaries of a ufunc
// call cost no driver allocation after warm-up. Allocation and copy failures throw CudaError
// saying what was asked (how many bytes, which device); frees never throw: they run in
// destructors, and at process exit the driver may already be gone.
//
// The copies and frees run in whatever context is current; a thread with none gets the primary
// context of the pointer's device made current (device 0's for pinned host memory), once the
// driver has refused the call for want of it. `stream` may be null: the legacy default stream.
#pragma once

#include <cuda.h>

#include <cstddef>

namespace jitvec::cuda {

/// `bytes` of device memory on `device`, ordered on `stream` (usable by work queued on it after
/// this call). nullptr for 0 bytes.
void* alloc_async(int device, std::size_t bytes, CUstream stream);
/// Frees memory from alloc_async once the work queued on `stream` so far is done. Null is
/// ignored; failures are logged.
void free_async(void* pointer, CUstream stream) noexcept;

/// Like alloc_async, but a request of up to BlockCache::kMaxBlockBytes is served from the
/// blocks recycled on `stream` when there is one (no driver call). A pool allocation that runs
/// out of memory releases the cached blocks of `device` and tries once more.
/// Throws ArgumentError when `stream` is being captured into a CUDA graph (one driver query
/// for a stream other than the null stream): recycled blocks must not be baked into a graph.
void* alloc_recycled(int device, std::size_t bytes, CUstream stream);
/// Gives back memory from alloc_recycled (the same `bytes` and `stream`): small blocks are
/// kept for reuse on `stream`, the others are freed with free_async. Never throws.
void free_recycled(int device, void* pointer, std::size_t bytes, CUstream stream) noexcept;
/// Frees the recycled blocks of `device` (all streams, or only `stream`'s) to the pool.
void release_recycled(int device, const CUstream* only_stream) noexcept;

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, CUstream stream);
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, CUstream stream);
void copy_device_to_device(void* dst, const void* src, std::size_t bytes, CUstream stream);

/// Page-locked host memory usable with every context (CU_MEMHOSTALLOC_PORTABLE); nullptr for
/// 0 bytes.
void* alloc_pinned(std::size_t bytes);
/// Frees memory from alloc_pinned. Null is ignored; failures are logged.
void free_pinned(void* pointer) noexcept;

/// Whether `pointer` addresses device memory the driver knows (cudaMalloc, cuMemAllocAsync,
/// another library's allocation); false for host memory, unknown pointers, or no driver.
bool is_device_pointer(const void* pointer) noexcept;

/// Waits for the work queued on `stream`.
void synchronize(CUstream stream);

}  // namespace jitvec::cuda
