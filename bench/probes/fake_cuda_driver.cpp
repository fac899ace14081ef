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
//   g++ -O2 -shared -fPIC -I/usr/local/cuda/include bench/probes/fake_cuda_driver.cpp \
//       -o /tmp/libfakecuda.so
//   JITVEC_CUDA_DRIVER=/tmp/libfakecuda.so build/bench/dispatch_profile
#include <cuda.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

namespace {

int g_context_tag, g_module_tag, g_function_tags[256], g_stream_tag, g_event_tag, g_pool_tag;
std::atomic<unsigned long long> g_launches{0};
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
  *f = reinterpret_cast<CUfunction>(&g_function_tags[std::hash<std::string>()(name) % 256]);
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
CUresult launch_kernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void**, void**) {
  g_launches.fetch_add(1, std::memory_order_relaxed);
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

const std::unordered_map<std::string, void*>& entry_points() {
  static const auto* table = new std::unordered_map<std::string, void*>{
      {"cuGetErrorName", reinterpret_cast<void*>(&get_error_text)},
      {"cuGetErrorString", reinterpret_cast<void*>(&get_error_text)},
      {"cuDriverGetVersion", reinterpret_cast<void*>(&driver_get_version)},
      {"cuDeviceGetCount", reinterpret_cast<void*>(&device_get_count)},
      {"cuDeviceGet", reinterpret_cast<void*>(&device_get)},
      {"cuDeviceGetName", reinterpret_cast<void*>(&device_get_name)},
      {"cuDeviceGetAttribute", reinterpret_cast<void*>(&device_get_attribute)},
      {"cuDeviceTotalMem", reinterpret_cast<void*>(&device_total_mem)},
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void*>(&primary_ctx_retain)},
      {"cuCtxGetCurrent", reinterpret_cast<void*>(&ctx_get_current)},
      {"cuCtxSetCurrent", reinterpret_cast<void*>(&ctx_set_current)},
      {"cuCtxPushCurrent", reinterpret_cast<void*>(&ctx_set_current)},
      {"cuCtxPopCurrent", reinterpret_cast<void*>(&ctx_pop_current)},
      {"cuModuleLoadData", reinterpret_cast<void*>(&module_load_data)},
      {"cuModuleGetFunction", reinterpret_cast<void*>(&module_get_function)},
      {"cuFuncGetAttribute", reinterpret_cast<void*>(&func_get_attribute)},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor", reinterpret_cast<void*>(&occupancy)},
      {"cuLaunchKernel", reinterpret_cast<void*>(&launch_kernel)},
      {"cuMemAlloc", reinterpret_cast<void*>(&mem_alloc)},
      {"cuMemFree", reinterpret_cast<void*>(&mem_free)},
      {"cuMemAllocAsync", reinterpret_cast<void*>(&mem_alloc_async)},
      {"cuMemFreeAsync", reinterpret_cast<void*>(&mem_free_async)},
      {"cuDeviceGetDefaultMemPool", reinterpret_cast<void*>(&default_mem_pool)},
      {"cuMemcpyHtoDAsync", reinterpret_cast<void*>(&copy_htod)},
      {"cuMemcpyDtoHAsync", reinterpret_cast<void*>(&copy_dtoh)},
      {"cuMemcpyDtoDAsync", reinterpret_cast<void*>(&copy_dtod_async)},
      {"cuMemcpyDtoD", reinterpret_cast<void*>(&copy_dtod)},
      {"cuMemsetD8Async", reinterpret_cast<void*>(&memset_d8)},
      {"cuMemHostAlloc", reinterpret_cast<void*>(&mem_host_alloc)},
      {"cuMemFreeHost", reinterpret_cast<void*>(&mem_free_host)},
      {"cuPointerGetAttribute", reinterpret_cast<void*>(&pointer_get_attribute)},
      {"cuStreamCreate", reinterpret_cast<void*>(&stream_create)},
      {"cuEventCreate", reinterpret_cast<void*>(&event_create)},
      {"cuEventElapsedTime", reinterpret_cast<void*>(&event_elapsed)},
      {"cuStreamIsCapturing", reinterpret_cast<void*>(&stream_is_capturing)},
  };
  return *table;
}

}  // namespace

extern "C" {

// Every other entry point (cuInit, frees, synchronisations, attribute setters...) succeeds
// without doing anything.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult* status) {
  const auto& table = entry_points();
  const auto it = table.find(symbol);
  *pfn = it != table.end() ? it->second : reinterpret_cast<void*>(&ok);
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

/// Kernel launches so far (for a profile program that wants to check it launched).
unsigned long long fake_cuda_launches() { return g_launches.load(); }

}  // extern "C"
