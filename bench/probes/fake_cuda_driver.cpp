// bench/probes/fake_cuda_driver.cpp: a stand-in libcuda whose every call succeeds at once, for
// profiling jitvec's host path of a GPU call on a machine without a GPU.
//
// jitvec loads the driver named by JITVEC_CUDA_DRIVER through cuGetProcAddress_v2 (src/cuda/
// driver.hpp). This library answers every entry point: the ones with outputs give one fake
// H100-like device (sm_90, 132 SMs), a context, modules and kernels that are only handles,
// "device" memory that is host memory (malloc; copies are memcpy), streams and events that are
// tags, and a cuLaunchKernel that counts and returns. What a ufunc call costs with it is
// everything jitvec does on the host (planning, the loop table, allocation, argument packing,
// the kernel choice) and nothing of the driver, so `perf record` shows jitvec's share alone.
// The results of calls are NOT computed: do not test values with it.
//
// Kernels are told apart by name: cuModuleGetFunction hands each distinct name its own handle,
// and `fake_cuda_last_launched()` names the kernel of the last cuLaunchKernel (tests/tools/
// on_demand_probe reads it to check which kernel each layout launched; the library is also
// built as jitvec_fake_cuda_driver for the tests).
//
// It counts the calls of every entry point: `fake_cuda_driver_calls()` is the total so far (a
// profile reads it before and after N calls: driver calls per call), and with
// FAKE_CUDA_LOG_CALLS=1 in the environment the counts per entry point are printed to stderr at
// exit (the entry points without their own body are counted too, by name).
//
//   g++ -O2 -shared -fPIC -I/usr/local/cuda/include bench/probes/fake_cuda_driver.cpp \
//       -o /tmp/libfakecuda.so
//   JITVEC_CUDA_DRIVER=/tmp/libfakecuda.so build/bench/dispatch_profile
#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace {

int g_context_tag, g_module_tag, g_function_tags[256], g_stream_tag, g_event_tag, g_pool_tag;
std::atomic<unsigned long long> g_launches{0};
// The names of the kernels handed out (g_function_tags[i] is kernel i) and the last launched.
std::mutex g_function_mutex;
std::unordered_map<std::string, int> g_function_index;
std::string g_function_names[256];
std::atomic<int> g_last_launched{-1};
thread_local CUcontext g_current = nullptr;

CUresult ok() { return CUDA_SUCCESS; }
CUresult get_error_text(CUresult, const char** text) {
  *text = "fake driver error";
  return CUDA_SUCCESS;
}
CUresult driver_get_version(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult device_get_count(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult device_get(CUdevice* d, int ordinal) {
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult device_get_name(char* name, int len, CUdevice) {
  std::strncpy(name, "Fake CUDA device (bench/probes/fake_cuda_driver)", static_cast<size_t>(len));
  return CUDA_SUCCESS;
}
CUresult device_get_attribute(int* value, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 << 20; break;
    default: *value = 1; break;
  }
  return CUDA_SUCCESS;
}
CUresult device_total_mem(size_t* bytes, CUdevice) {
  *bytes = size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult primary_ctx_retain(CUcontext* c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&g_context_tag);
  return CUDA_SUCCESS;
}
CUresult ctx_get_current(CUcontext* c) {
  *c = g_current;
  return CUDA_SUCCESS;
}
CUresult ctx_set_current(CUcontext c) {
  g_current = c;
  return CUDA_SUCCESS;
}
CUresult ctx_pop_current(CUcontext* c) {
  if (c) *c = g_current;
  return CUDA_SUCCESS;
}
CUresult module_load_data(CUmodule* m, const void*) {
  *m = reinterpret_cast<CUmodule>(&g_module_tag);
  return CUDA_SUCCESS;
}
CUresult module_get_function(CUfunction* f, CUmodule, const char* name) {
  std::lock_guard<std::mutex> lock(g_function_mutex);
  auto [it, added] = g_function_index.emplace(name, static_cast<int>(g_function_index.size()) % 256);
  if (added) g_function_names[it->second] = name;
  *f = reinterpret_cast<CUfunction>(&g_function_tags[it->second]);
  return CUDA_SUCCESS;
}
CUresult func_get_attribute(int* value, CUfunction_attribute, CUfunction) {
  *value = 0;
  return CUDA_SUCCESS;
}
CUresult occupancy(int* blocks, CUfunction, int, size_t) {
  *blocks = 8;
  return CUDA_SUCCESS;
}
CUresult launch_kernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void**, void**) {
  g_launches.fetch_add(1, std::memory_order_relaxed);
  g_last_launched.store(static_cast<int>(reinterpret_cast<int*>(f) - g_function_tags), std::memory_order_relaxed);
  return CUDA_SUCCESS;
}
CUresult mem_alloc(CUdeviceptr* p, size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  return CUDA_SUCCESS;
}
CUresult mem_alloc_async(CUdeviceptr* p, size_t bytes, CUstream) { return mem_alloc(p, bytes); }
CUresult mem_free(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult mem_free_async(CUdeviceptr p, CUstream) { return mem_free(p); }
CUresult default_mem_pool(CUmemoryPool* pool, CUdevice) {
  *pool = reinterpret_cast<CUmemoryPool>(&g_pool_tag);
  return CUDA_SUCCESS;
}
CUresult copy_htod(CUdeviceptr dst, const void* src, size_t n, CUstream) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return CUDA_SUCCESS;
}
CUresult copy_dtoh(void* dst, CUdeviceptr src, size_t n, CUstream) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult copy_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) {
  std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy_dtod_async(dst, src, n, nullptr);
}
CUresult memset_d8(CUdeviceptr dst, unsigned char v, size_t n, CUstream) {
  std::memset(reinterpret_cast<void*>(dst), v, n);
  return CUDA_SUCCESS;
}
CUresult mem_host_alloc(void** p, size_t bytes, unsigned) {
  *p = std::malloc(bytes ? bytes : 1);
  return CUDA_SUCCESS;
}
CUresult mem_free_host(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}
CUresult pointer_get_attribute(void* data, CUpointer_attribute a, CUdeviceptr) {
  if (a == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
    *static_cast<unsigned*>(data) = CU_MEMORYTYPE_HOST;
  } else {
    *static_cast<int*>(data) = 0;
  }
  return CUDA_SUCCESS;
}
CUresult stream_create(CUstream* s, unsigned) {
  *s = reinterpret_cast<CUstream>(&g_stream_tag);
  return CUDA_SUCCESS;
}
CUresult event_create(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(&g_event_tag);
  return CUDA_SUCCESS;
}
CUresult event_elapsed(float* ms, CUevent, CUevent) {
  *ms = 0.0f;
  return CUDA_SUCCESS;
}
CUresult stream_is_capturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

// Call counting: one counter per entry point, by name. The entry points with a body get
// slots 0..N-1 in the table's order, each wrapped by Counted; the others get a counted_ok<S>
// from the pool above them, in the order jitvec looks them up.
constexpr int kMaxCounted = 256;
std::atomic<unsigned long long> g_calls[kMaxCounted];
std::atomic<unsigned long long> g_total_calls{0};
const char* g_names[kMaxCounted];

void bump(int slot) {
  g_calls[slot].fetch_add(1, std::memory_order_relaxed);
  g_total_calls.fetch_add(1, std::memory_order_relaxed);
}

// Counted<Slot, decltype(&body)>::call<&body> counts a call in `Slot`, then runs `body`.
template <int Slot, class Body> struct Counted;
template <int Slot, class... A> struct Counted<Slot, CUresult (*)(A...)> {
  template <CUresult (*Body)(A...)> static CUresult call(A... a) {
    bump(Slot);
    return Body(a...);
  }
};
// Entry points without a body take any arguments and succeed: a function of no parameters
// called with arguments is harmless in the x86-64 and AArch64 calling conventions.
template <int Slot> CUresult counted_ok() {
  bump(Slot);
  return CUDA_SUCCESS;
}
template <std::size_t... S> constexpr std::array<void*, sizeof...(S)> ok_pool(std::index_sequence<S...>) {
  return {reinterpret_cast<void*>(&counted_ok<static_cast<int>(S)>)...};
}
const std::array<void*, kMaxCounted> g_ok_pool = ok_pool(std::make_index_sequence<kMaxCounted>{});

template <int Slot, auto Body> std::pair<const std::string, void*> entry(const char* name) {
  g_names[Slot] = name;
  return {name, reinterpret_cast<void*>(&Counted<Slot, decltype(Body)>::template call<Body>)};
}

constexpr int kWithBody = 35;
const std::unordered_map<std::string, void*>& entry_points() {
  static const auto* table = new std::unordered_map<std::string, void*>{
      entry<0, &get_error_text>("cuGetErrorName"),
      entry<1, &get_error_text>("cuGetErrorString"),
      entry<2, &driver_get_version>("cuDriverGetVersion"),
      entry<3, &device_get_count>("cuDeviceGetCount"),
      entry<4, &device_get>("cuDeviceGet"),
      entry<5, &device_get_name>("cuDeviceGetName"),
      entry<6, &device_get_attribute>("cuDeviceGetAttribute"),
      entry<7, &device_total_mem>("cuDeviceTotalMem"),
      entry<8, &primary_ctx_retain>("cuDevicePrimaryCtxRetain"),
      entry<9, &ctx_get_current>("cuCtxGetCurrent"),
      entry<10, &ctx_set_current>("cuCtxSetCurrent"),
      entry<11, &ctx_set_current>("cuCtxPushCurrent"),
      entry<12, &ctx_pop_current>("cuCtxPopCurrent"),
      entry<13, &module_load_data>("cuModuleLoadData"),
      entry<14, &module_get_function>("cuModuleGetFunction"),
      entry<15, &func_get_attribute>("cuFuncGetAttribute"),
      entry<16, &occupancy>("cuOccupancyMaxActiveBlocksPerMultiprocessor"),
      entry<17, &launch_kernel>("cuLaunchKernel"),
      entry<18, &mem_alloc>("cuMemAlloc"),
      entry<19, &mem_free>("cuMemFree"),
      entry<20, &mem_alloc_async>("cuMemAllocAsync"),
      entry<21, &mem_free_async>("cuMemFreeAsync"),
      entry<22, &default_mem_pool>("cuDeviceGetDefaultMemPool"),
      entry<23, &copy_htod>("cuMemcpyHtoDAsync"),
      entry<24, &copy_dtoh>("cuMemcpyDtoHAsync"),
      entry<25, &copy_dtod_async>("cuMemcpyDtoDAsync"),
      entry<26, &copy_dtod>("cuMemcpyDtoD"),
      entry<27, &memset_d8>("cuMemsetD8Async"),
      entry<28, &mem_host_alloc>("cuMemHostAlloc"),
      entry<29, &mem_free_host>("cuMemFreeHost"),
      entry<30, &pointer_get_attribute>("cuPointerGetAttribute"),
      entry<31, &stream_create>("cuStreamCreate"),
      entry<32, &event_create>("cuEventCreate"),
      entry<33, &event_elapsed>("cuEventElapsedTime"),
      entry<34, &stream_is_capturing>("cuStreamIsCapturing"),
  };
  return *table;
}

// Prints the counts at exit when FAKE_CUDA_LOG_CALLS is set.
struct CallLog {
  ~CallLog() {
    const char* flag = std::getenv("FAKE_CUDA_LOG_CALLS");
    if (flag == nullptr || *flag == '\0' || *flag == '0') return;
    std::fprintf(stderr, "fake CUDA driver: %llu calls\n", g_total_calls.load());
    for (int s = 0; s < kMaxCounted; ++s) {
      if (g_names[s] != nullptr && g_calls[s].load() > 0) {
        std::fprintf(stderr, "  %-44s %llu\n", g_names[s], g_calls[s].load());
      }
    }
  }
} g_call_log;

}  // namespace

extern "C" {

// Every other entry point (cuInit, frees, synchronisations, attribute setters...) succeeds
// without doing anything.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult* status) {
  static std::mutex mutex;
  static int next_slot = kWithBody;
  const auto& table = entry_points();
  if (const auto it = table.find(symbol); it != table.end()) {
    *pfn = it->second;
  } else {
    std::lock_guard<std::mutex> lock(mutex);
    int slot = kWithBody;
    while (slot < next_slot && std::strcmp(g_names[slot], symbol) != 0) ++slot;
    if (slot == next_slot && next_slot < kMaxCounted) g_names[next_slot++] = strdup(symbol);
    *pfn = slot < kMaxCounted ? g_ok_pool[static_cast<std::size_t>(slot)]
                              : reinterpret_cast<void*>(&ok);
  }
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

/// Driver calls made so far (every entry point), for a profile that counts calls per call.
unsigned long long fake_cuda_driver_calls() { return g_total_calls.load(); }

/// Kernel launches so far (for a profile program that wants to check it launched).
unsigned long long fake_cuda_launches() { return g_launches.load(); }

/// The name of the kernel the last cuLaunchKernel launched ("" before the first launch).
const char* fake_cuda_last_launched() {
  const int index = g_last_launched.load(std::memory_order_relaxed);
  if (index < 0 || index >= 256) return "";
  std::lock_guard<std::mutex> lock(g_function_mutex);
  return g_function_names[index].c_str();
}

}  // extern "C"
