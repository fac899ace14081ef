#include "cuda/launch.hpp"

#include <fmt/format.h>

#include <climits>

#include "cuda/driver.hpp"

namespace jitvec::cuda {
namespace {

[[noreturn]] void launch_failed(CUresult result, unsigned grid_x, unsigned grid_y,
                                unsigned grid_z, unsigned block, std::size_t shared_bytes) {
  throw_error(result, fmt::format("cuLaunchKernel (grid {}x{}x{}, block {}, {} bytes of dynamic "
                                  "shared memory)",
                                  grid_x, grid_y, grid_z, block, shared_bytes));
}

}  // namespace

void launch(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
            unsigned block, std::size_t shared_bytes, CUstream stream, void** params) {
  const CUresult result =
      shared_bytes <= UINT_MAX
          ? driver().launchKernel(function, grid_x, grid_y, grid_z, block, 1, 1,
                                  static_cast<unsigned>(shared_bytes), stream, params, nullptr)
          : CUDA_ERROR_INVALID_VALUE;
  if (result != CUDA_SUCCESS) launch_failed(result, grid_x, grid_y, grid_z, block, shared_bytes);
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
