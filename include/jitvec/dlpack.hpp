// jitvec/dlpack.hpp: exchanging arrays with other libraries through DLPack, without copies.
//
// DLPack is the C ABI that PyTorch, CuPy, NumPy, JAX, RMM and others use to hand a tensor to
// another library. This header brings in <dlpack/dlpack.h> (Debian's libdlpack-dev) and gives
// jitvec's side of it:
//
//     DLManagedTensor* t = producer_export(...);        // e.g. at::toDLPack(tensor)
//     jitvec::Array x = jitvec::Array::from_dlpack(t);  // a view: same memory, same strides
//     jitvec::Array y = f(x, 2.0f);                     // a jitvec result...
//     DLManagedTensor* back = y.to_dlpack();            // ...handed to the other library
//
// Ownership. from_dlpack() takes the tensor over on success: the Array (and every copy and
// view of it) keeps the producer's memory alive, and the producer's deleter is called exactly
// once, when the last of them is dropped. On error it throws ArgumentError and takes nothing:
// the caller still owns the tensor (and calls its deleter). to_dlpack() returns a tensor that
// holds a share of the Array's memory until the consumer calls its deleter, also after every
// Array is gone.
//
// Layout. Shape and strides are kept (DLPack counts strides in elements, as jitvec does; NULL
// strides mean C-contiguous); byte_offset is added to the data pointer; 0-d tensors are 0-d
// arrays. Exported tensors always carry strides and have byte_offset 0.
//
// Devices. kDLCPU and kDLCUDAHost (pinned host memory) become host arrays; kDLCUDA becomes a
// device array on its device_id; kDLCUDAManaged (cudaMallocManaged) becomes a device array on
// its device_id, so the cuda target reads it in place (the cpu targets then refuse it, as they
// refuse any device array: copy it with to_host() first). Other device types are an error.
// Exports are kDLCPU (host arrays) or kDLCUDA (device arrays).
//
// Dtypes. bool (kDLBool, 8 bits), int8..int64, uint8..uint64, float16/32/64 (kDLFloat),
// bfloat16 (kDLBfloat, 16 bits), complex64/128 (kDLComplex, 64/128 bits), one lane. Other
// widths, vector lanes and opaque handles are an error naming the type.
//
// Streams. A DLManagedTensor carries no stream: the producer's data must be complete in the
// order of the stream jitvec then uses. In Python that is what `__dlpack__(stream=s)` is for:
// the consumer passes the stream it will use, and the producer makes it wait (jitvec's Python
// package passes its call's stream). From C++, ask the producer for the tensor for your
// stream when it has such an API, else synchronize the producer's stream, or make your stream
// wait for it with wait_for_stream(). A jitvec result is complete in the order of the stream
// its call ran on (on(stream), default the null stream): a consumer on another stream waits
// with wait_for_stream(consumer, that_stream) before reading it.
//
// The versioned structs (DLPack 1.0's DLManagedTensorVersioned, with a version and read-only
// flags) are declared here when the installed dlpack.h is older than 1.0 (Debian 12 ships
// 0.6): the declarations below are ABI-identical to dlpack 1.0's, guarded by
// DLPACK_FLAG_BITMASK_READ_ONLY, so a newer dlpack.h simply takes their place.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#include "jitvec/array.hpp"

#ifndef DLPACK_FLAG_BITMASK_READ_ONLY
// dlpack.h before 1.0: the 1.0 declarations, field for field (dlpack/dlpack.h of v1.0).
extern "C" {
/// The DLPack ABI version a versioned tensor was made with.
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/// DLPack 1.0's managed tensor: versioned, with flags.
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}  // extern "C"
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define JITVEC_DLPACK_DECLARES_VERSIONED 1
#endif

namespace jitvec {

/// The DLPack version jitvec's versioned tensors declare (1.0).
inline constexpr std::uint32_t kDLPackMajorVersion = 1;
inline constexpr std::uint32_t kDLPackMinorVersion = 0;
/// DLDataTypeCode's kDLBool (DLPack 0.8 and later; absent from older dlpack.h enums).
inline constexpr std::uint8_t kDLPackBoolCode = 6;

/// The DLPack type of a jitvec dtype ({kDLFloat, 32, 1} for float32).
DLDataType to_dlpack_dtype(DType dtype);
/// The jitvec dtype of a DLPack type; throws ArgumentError naming the type when jitvec has
/// none (float16, bfloat16, complex, several lanes, ...).
DType from_dlpack_dtype(DLDataType dtype);

/// Makes work queued on `consumer` from now on wait until the work queued so far on
/// `producer` is done (both streams of `device`; CUDA's 0x1 and 0x2 handles, the legacy and
/// per-thread default streams, are accepted). Nothing happens when the two are the same
/// stream. This is what a DLPack producer's `__dlpack__(stream=consumer)` does.
void wait_for_stream(Stream consumer, Stream producer, int device = 0);

/// The CUDA device whose memory `ptr` points into (device, managed or mapped pinned memory):
/// for interfaces that give a pointer without its device, as __cuda_array_interface__ does.
/// Throws CudaError without a driver, ArgumentError for a pointer CUDA does not know.
int device_of_pointer(const void* ptr);

}  // namespace jitvec
