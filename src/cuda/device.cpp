#include "cuda/device.hpp"

#include <fmt/format.h>

#include <vector>

#include "cuda/driver.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

int attribute(const Driver& d, CUdevice device, CUdevice_attribute which) {
  int value = 0;
  check(d.deviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
  return value;
}

DeviceInfo query_device(const Driver& d, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  check(d.deviceGet(&info.handle, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(d.deviceGetName(name, sizeof name, info.handle), "cuDeviceGetName");
  info.name = name;
  info.cc_major = attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.max_threads_per_sm =
      attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.max_threads_per_block = attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  check(d.deviceTotalMem(&info.total_memory, info.handle), "cuDeviceTotalMem");
  info.l2_bytes = attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.memory_pools_supported =
      attribute(d, info.handle, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0;
  info.driver_version = d.version;
  return info;
}

// Never destroyed, like the primary contexts (see context.cpp).
const std::vector<DeviceInfo>& all_devices() {
  static const std::vector<DeviceInfo>* const devices = new std::vector<DeviceInfo>([] {
    const Driver& d = driver();
    int count = 0;
    check(d.deviceGetCount(&count), "cuDeviceGetCount");
    std::vector<DeviceInfo> found;
    found.reserve(static_cast<std::size_t>(count));
    for (int ordinal = 0; ordinal < count; ++ordinal) found.push_back(query_device(d, ordinal));
    return found;
  }());
  return *devices;
}

}  // namespace

int device_count() {
  if (!driver_available()) return 0;
  return static_cast<int>(all_devices().size());
}

const DeviceInfo& device_info(int ordinal) {
  const std::vector<DeviceInfo>& devices = all_devices();
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= devices.size()) {
    const std::string available =
        devices.empty() ? std::string("it has none")
                        : fmt::format("its ordinals are 0 to {}", devices.size() - 1);
    throw TargetError(
        fmt::format("CUDA device {} does not exist on this machine: {}", ordinal, available));
  }
  return devices[static_cast<std::size_t>(ordinal)];
}

std::string arch_name(int ordinal) {
  const DeviceInfo& info = device_info(ordinal);
  return fmt::format("sm_{}{}", info.cc_major, info.cc_minor);
}

}  // namespace jitvec::cuda
