// The members of jitvec::Array that allocate or copy memory: Array::empty, to_host, to_device.
//
// They live here, above the cuda layer, and not in core/array.cpp: core is the lowest layer
// and includes nothing from cuda/ (ARCHITECTURE.md). Defining the members here (rather than
// giving core a table of device operations that the cuda layer would install at start-up)
// keeps them working in every program that calls them, static builds included, with no
// registration step. A device operation that fails because this machine has no usable GPU
// says so in the user's terms: device arrays need a GPU.
#include "jitvec/array.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/array_access.hpp"
#include "core/array_layout.hpp"
#include "core/host_memory.hpp"
#include "core/strided_copy.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/memory.hpp"
#include "engine/graph_capture.hpp"

namespace jitvec {
namespace {

// Small blocks are recycled per stream (cuda/block_cache.hpp): a steady stream of small
// temporaries costs no driver call. The deleter frees on the allocation's stream.
std::shared_ptr<void> allocate_device(std::size_t bytes, int device, Stream stream) {
  CUstream_st* s = stream.handle();
  engine::refuse_allocation_in_capture(s, bytes);  // jitvec/graph.hpp: no allocation in a capture
  void* p = cuda::alloc_recycled(device, bytes, s);
  return std::shared_ptr<void>(p, [device, bytes, s](void* q) {
    if (!q) return;
    cuda::free_recycled(device, q, bytes, s);
  });
}

// Runs `work` (which touches device memory); when it fails on a machine without a usable GPU,
// the error says that `what` needs one. The outermost operation names itself (to_device, not
// the Array::empty inside it: it renames the inner one's error). Costs nothing when the work
// succeeds (no thread-local flag: that was a __tls_get_addr call per allocation).
constexpr const char* kNeedsGpu = "device arrays need a GPU, and this machine has no usable one";

template <class Work> auto needing_gpu(const char* what, Work work) {
  try {
    return work();
  } catch (const Error& e) {
    const char* inner = std::strstr(e.what(), kNeedsGpu);  // an inner operation's, renamed
    if (inner == nullptr && cuda::device_count() > 0) throw;
    const std::string message =
        inner != nullptr
            ? fmt::format("{}: {}", what, inner)
            : fmt::format("{}: {} ({}); keep arrays in host memory and run ufuncs with "
                          "target(Target::cpu) or target(Target::parallel)",
                          what, kNeedsGpu, e.what());
    if (const auto* cuda_error = dynamic_cast<const CudaError*>(&e)) {
      throw CudaError(message, cuda_error->code());
    }
    throw TargetError(message);
  }
}

// The memory of a new array of `bytes`, or null for 0 bytes of device memory.
std::shared_ptr<void> allocate(std::size_t bytes, Memory memory, int device, Stream stream) {
  if (memory == Memory::host) return core::allocate_host_block(bytes);  // core/host_memory.hpp
  if (bytes == 0) return nullptr;
  return needing_gpu("Array::empty(Memory::device)",
                     [&] { return allocate_device(bytes, device, stream); });
}

}  // namespace

Array Array::empty(DType dtype, Shape shape, Memory memory, int device, Stream stream) {
  detail::check_shape(shape);
  const std::size_t bytes =
      static_cast<std::size_t>(detail::element_count(shape)) * dtype_size(dtype);
  Array a{Unset{}};
  a.owner_ = allocate(bytes, memory, device, stream);
  a.data_ = a.owner_.get();
  a.dtype_ = dtype;
  a.layout_ = detail::contiguous_layout(std::move(shape));
  a.memory_ = memory;
  a.device_ = device;
  return a;
}

Array ArrayAccess::empty_like(DType dtype, const Array& like, Memory memory, int device,
                              Stream stream) {
  const detail::ArrayLayout* layout = like.layout_.get();
  if (!layout || !layout->c_strides) return Array::empty(dtype, like.shape(), memory, device, stream);
  // like's shape was checked when its layout was made, and its strides are Array::empty's.
  Array a{Array::Unset{}};
  a.owner_ = allocate(static_cast<std::size_t>(layout->size) * dtype_size(dtype), memory, device,
                      stream);
  a.data_ = a.owner_.get();
  a.dtype_ = dtype;
  a.layout_ = like.layout_;
  a.memory_ = memory;
  a.device_ = device;
  return a;
}

Array Array::to_host(Stream stream) const {
  Array result = Array::empty(dtype_, shape(), Memory::host);
  if (size() == 0) return result;
  if (memory_ == Memory::host) {
    detail::copy_strided_to_contiguous(*this, result.data());
    return result;
  }
  cuda::ContextGuard guard(device_);
  const detail::Extent extent = detail::memory_extent(*this);
  if (is_contiguous()) {
    cuda::copy_device_to_host(result.data(), data_, extent.bytes, stream.handle());
    cuda::synchronize(stream.handle());
    return result;
  }
  // Strided device view: bring the bytes it spans over, then gather on the host.
  std::vector<unsigned char> staging(extent.bytes);
  cuda::copy_device_to_host(staging.data(), static_cast<const char*>(data_) - extent.offset_before,
                            extent.bytes, stream.handle());
  cuda::synchronize(stream.handle());
  Array staged = *this;
  staged.memory_ = Memory::host;
  staged.owner_.reset();
  staged.data_ = staging.data() + extent.offset_before;
  detail::copy_strided_to_contiguous(staged, result.data());
  return result;
}

Array Array::to_device(int device, Stream stream) const {
  return needing_gpu("to_device", [&] {
    Array result = Array::empty(dtype_, shape(), Memory::device, device, stream);
    if (size() == 0) return result;
    cuda::ContextGuard guard(device);
    const std::size_t bytes = static_cast<std::size_t>(size()) * dtype_size(dtype_);
    if (memory_ == Memory::device) {
      if (!is_contiguous()) return to_host(stream).to_device(device, stream);
      cuda::copy_device_to_device(result.data(), data_, bytes, stream.handle());
      return result;
    }
    if (is_contiguous()) {
      cuda::copy_host_to_device(result.data(), data_, bytes, stream.handle());
      cuda::synchronize(stream.handle());  // the caller may free its host memory right after
      return result;
    }
    std::vector<unsigned char> packed(bytes);
    detail::copy_strided_to_contiguous(*this, packed.data());
    cuda::copy_host_to_device(result.data(), packed.data(), bytes, stream.handle());
    cuda::synchronize(stream.handle());
    return result;
  });
}

}  // namespace jitvec
