#include "cuda/driver.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <type_traits>

#include "compile/library_loading.hpp"
#include "core/log.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

constexpr const char* kNoDriverAdvice =
    "jitvec's GPU target needs an NVIDIA driver. Use Target::cpu or Target::parallel to run "
    "on the CPU (or set JITVEC_TARGET=cpu)";

// Describes `result` with `driver`'s error entry points, as far as they are loaded.
std::string describe(const Driver& driver, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (driver.getErrorName && driver.getErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (driver.getErrorString && driver.getErrorString(result, &text) != CUDA_SUCCESS) {
    text = nullptr;
  }
  if (name == nullptr) return fmt::format("CUresult {}", static_cast<int>(result));
  if (text == nullptr) return name;
  return fmt::format("{} ({})", name, text);
}

std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

// "; the driver supports CUDA 12.4", when `driver` can already say so.
std::string supported_version_note(const Driver& driver) {
  int version = 0;
  if (driver.driverGetVersion == nullptr || driver.driverGetVersion(&version) != CUDA_SUCCESS) {
    return {};
  }
  return fmt::format("; the driver supports CUDA {}", cuda_version_text(version));
}

// Never destroyed: destructors of other statics (an Engine's modules) still call the driver.
const compile::LoadOutcome<Driver>& process_driver() {
  static const auto* const outcome = new compile::LoadOutcome<Driver>(
      compile::LoadOutcome<Driver>::attempt("JITVEC_CUDA_DRIVER", [] {
        return detail::load_driver_from(detail::driver_library_path());
      }));
  return *outcome;
}

}  // namespace

namespace detail {

std::string driver_library_path() {
  const char* configured = std::getenv("JITVEC_CUDA_DRIVER");
  return configured != nullptr && *configured != '\0' ? configured : "libcuda.so.1";
}

Driver load_driver_from(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw CudaError(fmt::format("no CUDA driver: {} could not be loaded ({}); {}", path,
                                compile::last_dlerror(), kNoDriverAdvice),
                    -1);
  }
  // A library that turns out not to be a usable driver is closed again, so that a later
  // dlopen("libcuda.so.1") does not find it loaded under that name (the stub's soname).
  struct CloseUnlessKept {
    void* library;
    bool keep = false;
    ~CloseUnlessKept() {
      if (!keep) dlclose(library);
    }
  } closer{library};
  dlerror();  // clear any stale error before dlsym
  const auto get_proc_address =
      reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(library, "cuGetProcAddress_v2"));
  if (get_proc_address == nullptr) {
    throw CudaError(fmt::format("no CUDA driver: {} has no cuGetProcAddress_v2 ({}), so it is not "
                                "an NVIDIA driver for CUDA 12.0 or newer; {}",
                                path, compile::last_dlerror(), kNoDriverAdvice),
                    -1);
  }

  Driver driver;
  const auto find = [&](auto& entry_point, const char* symbol, int version) {
    void* function = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const CUresult result = get_proc_address(symbol, &function, version,
                                             CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
    if (result == CUDA_ERROR_STUB_LIBRARY) {
      throw CudaError(fmt::format("no CUDA driver: {} is the CUDA toolkit's stub libcuda, not a "
                                  "driver (no NVIDIA driver is installed, or the toolkit's stubs "
                                  "folder is on the library path ahead of it); {}",
                                  path, kNoDriverAdvice),
                      result);
    }
    if (result != CUDA_SUCCESS) {
      throw CudaError(fmt::format("no usable CUDA driver: cuGetProcAddress(\"{}\", {}) in {} "
                                  "failed: {}{}",
                                  symbol, version, path, describe(driver, result),
                                  supported_version_note(driver)),
                      result);
    }
    if (status != CU_GET_PROC_ADDRESS_SUCCESS || function == nullptr) {
      const char* why = status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            ? "the driver is too old for it"
                            : "the driver does not have it";
      throw CudaError(fmt::format("no usable CUDA driver: {} gives no {} for CUDA {} ({}){}; "
                                  "update the NVIDIA driver",
                                  path, symbol, cuda_version_text(version), why,
                                  supported_version_note(driver)),
                      -1);
    }
    entry_point = reinterpret_cast<std::remove_reference_t<decltype(entry_point)>>(function);
  };
#define JITVEC_CUDA_FIND_ENTRY_POINT(member, symbol, version) find(driver.member, #symbol, version);
  JITVEC_CUDA_DRIVER_FUNCTIONS(JITVEC_CUDA_FIND_ENTRY_POINT)
#undef JITVEC_CUDA_FIND_ENTRY_POINT

  const CUresult init = driver.init(0);
  if (init != CUDA_SUCCESS) {
    throw CudaError(fmt::format("no usable CUDA driver: cuInit failed in {}: {}{}; {}", path,
                                describe(driver, init), supported_version_note(driver),
                                kNoDriverAdvice),
                    init);
  }
  const CUresult version = driver.driverGetVersion(&driver.version);
  if (version != CUDA_SUCCESS) {
    throw CudaError(fmt::format("cuDriverGetVersion failed in {}: {}", path,
                                describe(driver, version)),
                    version);
  }
  jitvec::detail::log().debug("loaded the CUDA driver {} (CUDA {})", path,
                              cuda_version_text(driver.version));
  closer.keep = true;
  return driver;
}

}  // namespace detail

const Driver& driver() { return process_driver().get(); }

bool driver_available() noexcept {
  try {
    return process_driver().loaded.has_value();
  } catch (...) {  // only allocation failures while formatting the load error can land here
    return false;
  }
}

std::string error_text(CUresult result) {
  const compile::LoadOutcome<Driver>& loaded = process_driver();
  if (!loaded.loaded) return fmt::format("CUresult {}", static_cast<int>(result));
  return describe(*loaded.loaded, result);
}

void throw_error(CUresult result, std::string_view what) {
  throw CudaError(fmt::format("{} failed: {}", what, error_text(result)), result);
}

}  // namespace jitvec::cuda
