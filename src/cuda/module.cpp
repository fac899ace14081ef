#include "cuda/module.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

// Results with which the driver refuses an image itself (rather than failing for want of
// memory or a usable context): for a cubin, the PTX may still load.
bool image_refused(CUresult result) {
  switch (result) {
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC:
      return true;
    default:
      return false;
  }
}

}  // namespace

Module Module::load(int device, std::string_view cubin, std::string_view ptx) {
  const std::string where = fmt::format("CUDA device {} ({})", device, arch_name(device));
  if (cubin.empty() && ptx.empty()) {
    throw ArgumentError(
        fmt::format("cannot load a module on {}: both its cubin and its PTX are empty", where));
  }
  ContextGuard guard(device);
  const Driver& d = driver();
  CUmodule handle = nullptr;

  std::string cubin_failure = "there is no cubin";
  if (!cubin.empty()) {
    const CUresult result = d.moduleLoadData(&handle, cubin.data());
    if (result == CUDA_SUCCESS) return Module(device, handle, false);
    if (!image_refused(result)) {
      throw_error(result, fmt::format("cuModuleLoadData of a {}-byte cubin on {}", cubin.size(),
                                      where));
    }
    cubin_failure = fmt::format("the driver refused the {}-byte cubin: {}", cubin.size(),
                                error_text(result));
    if (ptx.empty()) {
      throw CudaError(fmt::format("cannot load a module on {}: {}; and there is no PTX to fall "
                                  "back on",
                                  where, cubin_failure),
                      result);
    }
  }

  jitvec::detail::log().debug("loading the PTX on {}: {}", where, cubin_failure);
  const std::string terminated_ptx(ptx);  // the driver reads PTX up to its NUL
  const CUresult result = d.moduleLoadData(&handle, terminated_ptx.c_str());
  if (result != CUDA_SUCCESS) {
    throw CudaError(fmt::format("cannot load a module on {}: {}; and cuModuleLoadData of the "
                                "{}-byte PTX failed: {}",
                                where, cubin_failure, ptx.size(), error_text(result)),
                    result);
  }
  return Module(device, handle, true);
}

Module::Module(Module&& other) noexcept
    : device_(other.device_),
      handle_(std::exchange(other.handle_, nullptr)),
      from_ptx_(other.from_ptx_) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    unload();
    device_ = other.device_;
    handle_ = std::exchange(other.handle_, nullptr);
    from_ptx_ = other.from_ptx_;
  }
  return *this;
}

Module::~Module() { unload(); }

void Module::unload() noexcept {
  if (handle_ == nullptr) return;
  const CUmodule handle = std::exchange(handle_, nullptr);
  try {
    ContextGuard guard(device_);
    const CUresult result = driver().moduleUnload(handle);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("cuModuleUnload on CUDA device {} failed: {}", device_,
                                  error_text(result));
    }
  } catch (const CudaError& error) {
    if (error.code() != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("unloading a module on CUDA device {}: {}", device_,
                                  error.what());
    }
  } catch (const std::exception& error) {
    jitvec::detail::log().error("unloading a module on CUDA device {}: {}", device_,
                                error.what());
  }
}

CUfunction Module::function(const char* name) const {
  ContextGuard guard(device_);
  CUfunction function = nullptr;
  const CUresult result = driver().moduleGetFunction(&function, handle_, name);
  if (result == CUDA_ERROR_NOT_FOUND) {
    throw CudaError(fmt::format("the module loaded on CUDA device {} has no kernel named '{}'",
                                device_, name),
                    result);
  }
  check(result, "cuModuleGetFunction");
  return function;
}

}  // namespace jitvec::cuda
