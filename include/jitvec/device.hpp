// jitvec/device.hpp: the few GPU facts and controls a user needs besides ufunc calls.
//
// cuda_device_count() says how many GPUs jitvec can use (0 on machines without a driver; it
// never throws). synchronize() waits until everything queued on a stream has finished, e.g.
// before timing or before reading a device result through another API.
//
// Small device blocks (up to 1 MiB) that jitvec frees on a stream are kept for reuse by later
// allocations on the same stream, as PyTorch's and CuPy's allocators do, so a call on small
// arrays costs no driver allocation. Stream order makes that reuse safe. The one rule it adds:
// before destroying a stream you gave jitvec, call release_cached_memory(stream) (arrays
// allocated on a stream must not outlive it anyway, since they are freed on it). As with any
// stream-ordered allocator (cuMemFreeAsync, PyTorch's, CuPy's), an array is freed in the order
// of the stream it was allocated on: if work on another stream still uses it, synchronize
// that stream before dropping the array.
#pragma once

#include "jitvec/array.hpp"

namespace jitvec {

/// Number of CUDA devices usable here; 0 when there is no driver or no GPU.
int cuda_device_count() noexcept;

/// Waits for all work queued on `stream` (of `device`'s primary context) to finish.
void synchronize(Stream stream = {}, int device = 0);

/// Frees every cached device block of every device to the devices' memory pools. Arrays that
/// are alive are not touched. Does nothing on a machine without a driver.
void release_cached_memory() noexcept;
/// Frees the cached blocks of `stream` on `device`: call it before destroying that stream.
void release_cached_memory(Stream stream, int device = 0) noexcept;

}  // namespace jitvec
