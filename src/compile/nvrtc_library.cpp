#include "compile/nvrtc_library.hpp"

#include <cuda.h>  // CUDA_VERSION
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>

#include "compile/library_loading.hpp"
#include "core/log.hpp"
#include "jitvec/errors.hpp"

// libnvrtc's soname carries the CUDA major version of the toolkit whose nvrtc.h this is
// compiled against (cuda.h's CUDA_VERSION). The build also defines JITVEC_NVRTC_BUILD_DIR,
// that toolkit's library folder (CMakeLists.txt).
#if CUDA_VERSION >= 12000 && CUDA_VERSION < 13000
#define JITVEC_NVRTC_MAJOR_TEXT "12"
#elif CUDA_VERSION >= 13000 && CUDA_VERSION < 14000
#define JITVEC_NVRTC_MAJOR_TEXT "13"
#elif CUDA_VERSION >= 14000 && CUDA_VERSION < 15000
#define JITVEC_NVRTC_MAJOR_TEXT "14"
#else
#error "jitvec needs the headers of CUDA 12, 13 or 14 (or add this CUDA_VERSION here)"
#endif

namespace jitvec::compile {
namespace {

constexpr const char* kNoNvrtcAdvice =
    "the cuda target compiles kernels with NVRTC (libnvrtc.so from the CUDA toolkit, or the "
    "nvidia-cuda-nvrtc package); install it, or set JITVEC_NVRTC to its path (e.g. "
    "/usr/local/cuda/lib64/libnvrtc.so." JITVEC_NVRTC_MAJOR_TEXT
    "); the cpu and parallel targets need no CUDA at all";

// Never destroyed: a compile past its time limit may still be running in NVRTC at exit.
const LoadOutcome<Nvrtc>& process_nvrtc() {
  static const auto* const outcome = new LoadOutcome<Nvrtc>(LoadOutcome<Nvrtc>::attempt(
      "JITVEC_NVRTC", [] { return detail::load_nvrtc_from(detail::nvrtc_library_candidates()); }));
  return *outcome;
}

}  // namespace

namespace detail {

std::vector<std::string> nvrtc_library_candidates() {
  const char* configured = std::getenv("JITVEC_NVRTC");
  if (configured != nullptr && *configured != '\0') return {configured};
  std::vector<std::string> candidates{"libnvrtc.so." JITVEC_NVRTC_MAJOR_TEXT};
#ifdef JITVEC_NVRTC_BUILD_DIR
  candidates.push_back(JITVEC_NVRTC_BUILD_DIR "/libnvrtc.so." JITVEC_NVRTC_MAJOR_TEXT);
#endif
  candidates.push_back("libnvrtc.so");
  return candidates;
}

Nvrtc load_nvrtc_from(const std::vector<std::string>& candidates) {
  std::vector<std::string> failures;
  for (const std::string& path : candidates) {
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      std::string why = last_dlerror();  // usually starts with the path already
      failures.push_back(why.rfind(path, 0) == 0 ? why : fmt::format("{}: {}", path, why));
      continue;
    }
    Nvrtc nvrtc;
    nvrtc.path = path;
    std::string missing;
    dlerror();  // clear any stale error before dlsym
#define JITVEC_NVRTC_FIND_ENTRY_POINT(member, symbol)                                \
  nvrtc.member = reinterpret_cast<decltype(nvrtc.member)>(dlsym(library, #symbol)); \
  if (nvrtc.member == nullptr && missing.empty()) missing = #symbol;
    JITVEC_NVRTC_FUNCTIONS(JITVEC_NVRTC_FIND_ENTRY_POINT)
#undef JITVEC_NVRTC_FIND_ENTRY_POINT
    if (!missing.empty()) {
      failures.push_back(fmt::format("{}: has no {}, so it is not NVRTC 11.1 or newer", path,
                                     missing));
      dlclose(library);
      continue;
    }
    int major = 0, minor = 0;
    nvrtc.version(&major, &minor);
    jitvec::detail::log().debug("loaded NVRTC {}.{} from {}", major, minor, path);
    return nvrtc;
  }
  throw CudaError(fmt::format("no NVRTC: {}; {}", fmt::join(failures, "; "), kNoNvrtcAdvice), -1);
}

}  // namespace detail

const Nvrtc& nvrtc() { return process_nvrtc().get(); }

void preload_nvrtc() noexcept {
  try {
    if (!nvrtc_available()) return;
    const Nvrtc& loaded = nvrtc();
    int major = 0, minor = 0;
    loaded.version(&major, &minor);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(loaded.version), &info) == 0 || info.dli_fname == nullptr) return;
    const std::string path = info.dli_fname;
    const std::string folder = path.substr(0, path.rfind('/') + 1);
    // Kept open for the process, as NVRTC keeps it; a missing one is NVRTC's to report.
    dlopen(fmt::format("{}libnvrtc-builtins.so.{}.{}", folder, major, minor).c_str(), RTLD_NOW | RTLD_LOCAL);
  } catch (...) {
  }
}

bool nvrtc_available() noexcept {
  try {
    return process_nvrtc().loaded.has_value();
  } catch (...) {  // only allocation failures while formatting the load error can land here
    return false;
  }
}

}  // namespace jitvec::compile
