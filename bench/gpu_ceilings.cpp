#include "gpu_ceilings.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/memory.hpp"
#include "cuda/module.hpp"
#include "random_inputs.hpp"

namespace bench {
namespace {

namespace cuda = jitvec::cuda;

// Above this many bytes copied, a copy counts as large (beyond the 60 MB L2) and gets the
// large repetition counts.
constexpr std::size_t kLargeCopyBytes = std::size_t{32} << 20;

CUdeviceptr address(const void* pointer) { return reinterpret_cast<CUdeviceptr>(pointer); }

// `array` as a 1-d view; it must be a contiguous device array.
jitvec::Array flat_device_array(const jitvec::Array& array) {
  if (!array.is_device() || !array.is_contiguous()) {
    throw std::invalid_argument("the copy ceiling needs a contiguous device array, not " +
                                array.describe());
  }
  return array.reshape({array.size()});
}

}  // namespace

DeviceCopyCeiling::DeviceCopyCeiling(const jitvec::Array& random_source, CUstream stream,
                                     Repetitions large, Repetitions small)
    : source_(flat_device_array(random_source)),
      destination_(jitvec::Array::empty(random_source.dtype(), {random_source.size()},
                                        jitvec::Memory::device, random_source.device(), stream)),
      stream_(stream),
      large_(large),
      small_(small),
      timer_(random_source.device(), stream) {}

const Record& DeviceCopyCeiling::measure_capped(double total_bytes) {
  const double available =
      static_cast<double>(source_.size()) * static_cast<double>(jitvec::dtype_size(source_.dtype()));
  return measure(std::min(total_bytes, 2.0 * available));
}

const Record& DeviceCopyCeiling::measure(double total_bytes) {
  const auto copy_bytes = static_cast<std::size_t>(total_bytes / 2.0);
  const std::size_t available =
      static_cast<std::size_t>(source_.size()) * jitvec::dtype_size(source_.dtype());
  if (copy_bytes > available) {
    throw std::invalid_argument(
        fmt::format("a device copy of {} bytes was asked for; the random source holds only {}",
                    copy_bytes, available));
  }
  if (const auto found = measured_.find(copy_bytes); found != measured_.end()) {
    return found->second;
  }
  const Repetitions reps = copy_bytes >= kLargeCopyBytes ? large_ : small_;
  const double ms = timer_.median_ms(reps, [&] {
    cuda::check(cuda::driver().memcpyDtoDAsync(address(destination_.data()),
                                               address(source_.data()), copy_bytes, stream_),
                "cuMemcpyDtoDAsync");
  });
  Record record{"memcpy_dtod", "ceiling", static_cast<std::int64_t>(copy_bytes), "bytes"};
  record.method = fmt::format(
      "cuMemcpyDtoDAsync of {} bytes (read + written = {}), CUDA events, "
      "median of {}",
      copy_bytes, 2 * copy_bytes, reps.timed);
  record.set_bandwidth(2.0 * static_cast<double>(copy_bytes), ms);
  record.has_output = false;
  return measured_.emplace(copy_bytes, std::move(record)).first->second;
}

std::vector<Record> DeviceCopyCeiling::records() const {
  std::vector<Record> all;
  for (const auto& [bytes, record] : measured_) all.push_back(record);
  return all;
}

PinnedCopies measure_pinned_copies(int device, CUstream stream, std::size_t bytes,
                                   Repetitions reps) {
  struct PinnedBuffer {
    void* pointer;
    explicit PinnedBuffer(std::size_t size) : pointer(cuda::alloc_pinned(size)) {}
    ~PinnedBuffer() { cuda::free_pinned(pointer); }
  };
  const PinnedBuffer host(bytes);
  {
    const std::vector<float> random =
        uniform_floats(static_cast<std::int64_t>(bytes / sizeof(float)), -1.0, 1.0, 7);
    std::memcpy(host.pointer, random.data(), random.size() * sizeof(float));
  }
  const jitvec::Array device_buffer =
      jitvec::Array::empty(jitvec::DType::uint8, {static_cast<std::int64_t>(bytes)},
                           jitvec::Memory::device, device, stream);
  EventTimer timer(device, stream);
  const CUdeviceptr device_address = address(device_buffer.data());

  PinnedCopies copies;
  copies.host_to_device =
      Record{"pinned_h2d", "ceiling", static_cast<std::int64_t>(bytes), "bytes"};
  copies.host_to_device.set_bandwidth(static_cast<double>(bytes), timer.median_ms(reps, [&] {
    cuda::check(cuda::driver().memcpyHtoDAsync(device_address, host.pointer, bytes, stream),
                "cuMemcpyHtoDAsync");
  }));
  copies.device_to_host =
      Record{"pinned_d2h", "ceiling", static_cast<std::int64_t>(bytes), "bytes"};
  copies.device_to_host.set_bandwidth(static_cast<double>(bytes), timer.median_ms(reps, [&] {
    cuda::check(cuda::driver().memcpyDtoHAsync(host.pointer, device_address, bytes, stream),
                "cuMemcpyDtoHAsync");
  }));
  for (Record* r : {&copies.host_to_device, &copies.device_to_host}) {
    r->method = fmt::format("{} bytes of page-locked host memory, CUDA events, median of {}", bytes,
                            reps.timed);
    r->has_output = false;
  }
  copies.round_trip_gbps =
      2.0 * static_cast<double>(bytes) /
      ((copies.host_to_device.time_ms + copies.device_to_host.time_ms) * 1e-3) / 1e9;
  return copies;
}

struct BareLaunch::Loaded {
  cuda::Module module;
  CUfunction kernel;
  CUfunction with_parameters;
  // Values for the ten parameters (null pointers: the kernel reads nothing) and one pointer
  // to each, as jitvec's launcher passes them.
  struct Values {
    const float* in[3] = {};
    float scalar[3] = {};
    float* out = nullptr;
    unsigned masks[2] = {};
    long long n = 1024;
  } values;
  void* parameters[10] = {};
};

BareLaunch::BareLaunch(int device, CUstream stream) : stream_(stream) {
  static const char* const kName = "jitvec_bench_empty_kernel";
  static const char* const kParametersName = "jitvec_bench_empty_kernel_10";
  const cuda::DeviceInfo& info = cuda::device_info(device);
  const jitvec::compile::CudaBinary binary = jitvec::compile::compile_cuda(
      fmt::format("extern \"C\" __global__ void {}() {{}}\n"
                  "extern \"C\" __global__ void {}(const float* __restrict__ in0, const float s0, "
                  "const float* __restrict__ in1, const float s1, const float* __restrict__ in2, "
                  "const float s2, float* __restrict__ out, const unsigned scalar_mask, "
                  "const unsigned lane_mask, const long long n) {{}}\n",
                  kName, kParametersName),
      kName, jitvec::compile::arch_for_device(info.cc_major, info.cc_minor));
  cuda::Module module = cuda::Module::load(device, binary.cubin, binary.ptx);
  const CUfunction kernel = module.function(kName);
  const CUfunction with_parameters = module.function(kParametersName);
  auto loaded = std::make_shared<Loaded>(Loaded{std::move(module), kernel, with_parameters, {}});
  Loaded::Values& v = loaded->values;
  void* const pointers[10] = {&v.in[0], &v.scalar[0], &v.in[1], &v.scalar[1], &v.in[2],
                              &v.scalar[2], &v.out,  &v.masks[0], &v.masks[1], &v.n};
  std::copy(std::begin(pointers), std::end(pointers), loaded->parameters);
  loaded_ = std::move(loaded);
}

void BareLaunch::launch() const {
  cuda::check(cuda::driver().launchKernel(loaded_->kernel, 1, 1, 1, 32, 1, 1, 0, stream_, nullptr,
                                          nullptr),
              "cuLaunchKernel");
}

void BareLaunch::launch_with_parameters() const {
  cuda::check(cuda::driver().launchKernel(loaded_->with_parameters, 1, 1, 1, 32, 1, 1, 0, stream_,
                                          const_cast<void**>(loaded_->parameters), nullptr),
              "cuLaunchKernel");
}

bool BareLaunch::from_ptx() const { return loaded_->module.from_ptx(); }

Record measure_bare_launch(const BareLaunch& bare, CUstream stream, int batches,
                           int calls_per_batch) {
  const double us = host_us_per_call(stream, batches, calls_per_batch, [&] { bare.launch(); });
  Record record{"bare_launch", "ceiling", 0, "-"};
  record.time_ms = us / 1000.0;
  record.has_output = false;
  record.method = fmt::format(
      "host time of cuLaunchKernel(empty kernel, 1 block of 32), {} "
      "batches of {} back-to-back launches, median of batch averages{}",
      batches, calls_per_batch, bare.from_ptx() ? " (loaded from PTX)" : "");
  return record;
}

}  // namespace bench
