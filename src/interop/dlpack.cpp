// DLPack import and export of Arrays (include/jitvec/dlpack.hpp says what maps to what).
// The interop layer: above core/ and cuda/, below engine/.
#include "jitvec/dlpack.hpp"

#include <fmt/format.h>

#include <memory>
#include <new>
#include <string>

#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "cuda/stream.hpp"

namespace jitvec {
namespace {

// The largest rank accepted from a producer: far above what anything makes, low enough that a
// garbage ndim is reported instead of read past.
constexpr int kMaxImportDims = 64;

std::string dlpack_type_text(DLDataType t) {
  const char* code = nullptr;
  switch (t.code) {
    case kDLInt: code = "int"; break;
    case kDLUInt: code = "uint"; break;
    case kDLFloat: code = "float"; break;
    case kDLOpaqueHandle: code = "opaque handle"; break;
    case kDLBfloat: code = "bfloat"; break;
    case kDLComplex: code = "complex"; break;
    case kDLPackBoolCode: code = "bool"; break;
  }
  std::string text = code ? fmt::format("{}{}", code, t.bits)
                          : fmt::format("type code {} of {} bits", t.code, t.bits);
  if (t.lanes != 1) text += fmt::format(" x {} lanes", t.lanes);
  return text;
}

std::string device_type_text(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
  }
  return fmt::format("device type {}", type);
}

struct Placement {
  Memory memory;
  int device;
};

Placement placement_of(DLDevice device) {
  switch (static_cast<int>(device.device_type)) {
    case kDLCPU:
    case kDLCUDAHost: return {Memory::host, 0};
    case kDLCUDA:
    case kDLCUDAManaged:
      if (device.device_id < 0) {
        throw ArgumentError(fmt::format("from_dlpack: {} tensor with device_id {}",
                                        device_type_text(device.device_type), device.device_id));
      }
      return {Memory::device, device.device_id};
  }
  throw ArgumentError(fmt::format(
      "from_dlpack: the tensor lives on {} (device_id {}); jitvec reads kDLCPU, kDLCUDA, "
      "kDLCUDAHost and kDLCUDAManaged memory",
      device_type_text(device.device_type), device.device_id));
}

// A view of `t` that does not own anything yet; throws for anything jitvec cannot read.
Array view_of(const DLTensor& t) {
  if (t.ndim < 0 || t.ndim > kMaxImportDims) {
    throw ArgumentError(fmt::format("from_dlpack: tensor with ndim {} (jitvec reads 0 to {})",
                                    t.ndim, kMaxImportDims));
  }
  if (t.ndim > 0 && !t.shape) {
    throw ArgumentError(fmt::format("from_dlpack: {}-d tensor with a null shape pointer", t.ndim));
  }
  const DType dtype = from_dlpack_dtype(t.dtype);
  const Placement where = placement_of(t.device);
  Shape shape(t.shape, t.shape + t.ndim);
  Strides strides;
  if (t.strides && t.ndim > 0) strides.assign(t.strides, t.strides + t.ndim);
  std::int64_t elements = 1;
  for (std::int64_t s : shape) elements *= s;
  if (!t.data && elements > 0) {
    throw ArgumentError(fmt::format("from_dlpack: null data pointer for a {} tensor of shape {}",
                                    dtype_name(dtype), shape_to_string(shape)));
  }
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  try {
    return Array::wrap(data, dtype, std::move(shape), std::move(strides), where.memory,
                       where.device);
  } catch (const ArgumentError& e) {
    throw ArgumentError(fmt::format("from_dlpack (data {} + byte_offset {}): {}", t.data,
                                    t.byte_offset, e.what()));
  }
}

// Holds an imported tensor; the producer's deleter runs when the last Array sharing it goes.
template <class Managed>
struct ImportedTensor {
  explicit ImportedTensor(Managed* m) : managed(m) {}
  ImportedTensor(const ImportedTensor&) = delete;
  ImportedTensor& operator=(const ImportedTensor&) = delete;
  ~ImportedTensor() {
    if (managed->deleter) managed->deleter(managed);
  }
  Managed* managed;
};

// An exported tensor's manager_ctx: the Array (a share of its memory) and the shape and
// strides the DLTensor points into. Freed by the consumer's call of the deleter.
template <class Managed>
struct ExportedTensor {
  Managed managed{};
  Array array;
  Shape shape;
  Strides strides;

  static void deleter(Managed* self) {
    // Device memory is freed stream-ordered; a driver error is logged, never thrown here.
    try {
      delete static_cast<ExportedTensor*>(self->manager_ctx);
    } catch (const std::exception& e) {
      detail::log().error("DLPack deleter: freeing an exported array failed: {}", e.what());
    }
  }
};

template <class Managed>
Managed* export_array(const Array& array) {
  auto ctx = std::make_unique<ExportedTensor<Managed>>();
  ctx->array = array;
  ctx->shape = array.shape();
  ctx->strides = array.strides();
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = array.data();
  t.device = array.is_device() ? DLDevice{kDLCUDA, array.device()} : DLDevice{kDLCPU, 0};
  t.ndim = array.ndim();
  t.dtype = to_dlpack_dtype(array.dtype());
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &ExportedTensor<Managed>::deleter;
  return &ctx.release()->managed;
}

}  // namespace

DLDataType to_dlpack_dtype(DType dtype) {
  const auto bits = static_cast<std::uint8_t>(dtype_size(dtype) * 8);
  switch (dtype_kind(dtype)) {
    case DTypeKind::boolean: return DLDataType{kDLPackBoolCode, 8, 1};
    case DTypeKind::unsigned_int: return DLDataType{kDLUInt, bits, 1};
    case DTypeKind::signed_int: return DLDataType{kDLInt, bits, 1};
    case DTypeKind::floating:
      return DLDataType{static_cast<std::uint8_t>(dtype == DType::bfloat16 ? kDLBfloat : kDLFloat), bits, 1};
    case DTypeKind::complex: return DLDataType{kDLComplex, bits, 1};
  }
  throw Error(fmt::format("to_dlpack: no DLPack type for {}", dtype_name(dtype)));
}

DType from_dlpack_dtype(DLDataType t) {
  if (t.lanes == 1) {
    switch (t.code) {
      case kDLPackBoolCode:
        if (t.bits == 8) return DType::bool_;
        break;
      case kDLInt:
        switch (t.bits) {
          case 8: return DType::int8;
          case 16: return DType::int16;
          case 32: return DType::int32;
          case 64: return DType::int64;
        }
        break;
      case kDLUInt:
        switch (t.bits) {
          case 8: return DType::uint8;
          case 16: return DType::uint16;
          case 32: return DType::uint32;
          case 64: return DType::uint64;
        }
        break;
      case kDLFloat:
        if (t.bits == 16) return DType::float16;
        if (t.bits == 32) return DType::float32;
        if (t.bits == 64) return DType::float64;
        break;
      case kDLBfloat:
        if (t.bits == 16) return DType::bfloat16;
        break;
      case kDLComplex:
        if (t.bits == 64) return DType::complex64;
        if (t.bits == 128) return DType::complex128;
        break;
    }
  }
  throw ArgumentError(fmt::format(
      "from_dlpack: jitvec has no dtype for DLPack's {} (code {}, bits {}, lanes {}); it reads "
      "bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64, complex64 and "
      "complex128 of one lane",
      dlpack_type_text(t), t.code, t.bits, t.lanes));
}

Array Array::from_dlpack(DLManagedTensor* tensor) {
  if (!tensor) throw ArgumentError("from_dlpack: null DLManagedTensor pointer");
  Array a = view_of(tensor->dl_tensor);
  // make_shared allocates before the holder exists: if it throws, no deleter has run.
  a.owner_ = std::make_shared<ImportedTensor<DLManagedTensor>>(tensor);
  return a;
}

Array Array::from_dlpack(DLManagedTensorVersioned* tensor, bool writable) {
  if (!tensor) throw ArgumentError("from_dlpack: null DLManagedTensorVersioned pointer");
  if (tensor->version.major != kDLPackMajorVersion) {
    throw ArgumentError(fmt::format(
        "from_dlpack: the tensor is of DLPack version {}.{}; jitvec reads major version {}",
        tensor->version.major, tensor->version.minor, kDLPackMajorVersion));
  }
  if (writable && (tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY)) {
    throw ArgumentError("from_dlpack: the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY) "
                        "but is to be written (out=)");
  }
  Array a = view_of(tensor->dl_tensor);
  a.owner_ = std::make_shared<ImportedTensor<DLManagedTensorVersioned>>(tensor);
  return a;
}

DLManagedTensor* Array::to_dlpack() const { return export_array<DLManagedTensor>(*this); }

DLManagedTensorVersioned* Array::to_dlpack_versioned() const {
  DLManagedTensorVersioned* t = export_array<DLManagedTensorVersioned>(*this);
  t->version = DLPackVersion{kDLPackMajorVersion, kDLPackMinorVersion};
  t->flags = 0;
  return t;
}

void wait_for_stream(Stream consumer, Stream producer, int device) {
  // 0 and CU_STREAM_LEGACY (0x1) both name the legacy default stream (jitvec calls the
  // driver's per-context functions, not the per-thread-default ones).
  auto canonical = [](CUstream_st* s) { return s == CU_STREAM_LEGACY ? nullptr : s; };
  if (canonical(consumer.handle()) == canonical(producer.handle())) return;
  cuda::ContextGuard guard(device);
  cuda::Event event(device);
  event.record(producer.handle());
  cuda::wait_for_event(consumer.handle(), event);
}

int device_of_pointer(const void* ptr) {
  int ordinal = -1;
  const CUresult r = cuda::driver().pointerGetAttribute(
      &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS || ordinal < 0) {
    throw ArgumentError(fmt::format("pointer {} is not memory CUDA knows ({})", ptr,
                                    cuda::error_text(r)));
  }
  return ordinal;
}

}  // namespace jitvec
