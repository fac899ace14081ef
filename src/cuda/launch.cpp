#include "cuda/launch.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/log.hpp"
#include "cuda/driver.hpp"

namespace jitvec::cuda {
namespace {

[[noreturn]] void launch_failed(CUresult result, unsigned grid_x, unsigned grid_y,
                                unsigned grid_z, unsigned block, std::size_t shared_bytes) {
  throw_error(result, fmt::format("cuLaunchKernel (grid {}x{}x{}, block {}, {} bytes of dynamic "
                                  "shared memory)",
                                  grid_x, grid_y, grid_z, block, shared_bytes));
}

// The errors of a launch made while another context than the function's is current.
bool context_refused(CUresult result) {
  return result == CUDA_ERROR_INVALID_HANDLE || result == CUDA_ERROR_INVALID_CONTEXT ||
         result == CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

// One cuLaunchKernel with `params` or `extra`; a refusal for the context, when the guard only
// trusted the thread's memory, asks the driver and launches again.
void launch_with(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                 unsigned block, std::size_t shared_bytes, CUstream stream, void** params,
                 void** extra, ContextGuard* guard) {
  if (shared_bytes > UINT_MAX) {
    launch_failed(CUDA_ERROR_INVALID_VALUE, grid_x, grid_y, grid_z, block, shared_bytes);
  }
  // A launch follows a loaded module, so the driver loaded: kept after the first call.
  static const Driver& d = driver();
  const auto launch_once = [&] {
    return d.launchKernel(function, grid_x, grid_y, grid_z, block, 1, 1,
                          static_cast<unsigned>(shared_bytes), stream, params, extra);
  };
  CUresult result = launch_once();
  if (result != CUDA_SUCCESS && guard && guard->trusted_cache() && context_refused(result)) {
    guard->verify();  // the thread's context had changed behind jitvec's back
    result = launch_once();
  }
  if (result != CUDA_SUCCESS) launch_failed(result, grid_x, grid_y, grid_z, block, shared_bytes);
}

}  // namespace

void launch(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
            unsigned block, std::size_t shared_bytes, CUstream stream, void** params,
            ContextGuard* guard) {
  launch_with(function, grid_x, grid_y, grid_z, block, shared_bytes, stream, params, nullptr,
              guard);
}

void launch_buffer(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                   unsigned block, std::size_t shared_bytes, CUstream stream, const void* args,
                   std::size_t bytes, ContextGuard* guard) {
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void*>(args),
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
  launch_with(function, grid_x, grid_y, grid_z, block, shared_bytes, stream, nullptr, extra, guard);
}

bool launch_params_buffer(const char* value) {
  if (value == nullptr || *value == '\0' || std::strcmp(value, "pointers") == 0) return false;
  if (std::strcmp(value, "buffer") == 0) return true;
  jitvec::detail::warn_once("JITVEC_LAUNCH_PARAMS",
            fmt::format("JITVEC_LAUNCH_PARAMS='{}' is not one of buffer, pointers: launches pass "
                        "one pointer a parameter",
                        value));
  return false;
}

bool launch_with_buffer() noexcept {
  static const bool buffer = [] {
    try {
      return launch_params_buffer(std::getenv("JITVEC_LAUNCH_PARAMS"));
    } catch (...) {  // a failed warning (no memory) leaves the default
      return false;
    }
  }();
  return buffer;
}

int max_active_blocks_per_sm(CUfunction function, int block_size) {
  int blocks = 0;
  const CUresult result =
      driver().occupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, block_size, 0);
  if (result != CUDA_SUCCESS) {
    throw_error(result,
                fmt::format("cuOccupancyMaxActiveBlocksPerMultiprocessor (block of {} threads)",
                            block_size));
  }
  return blocks;
}

}  // namespace jitvec::cuda
