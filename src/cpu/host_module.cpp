#include "cpu/host_module.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/log.hpp"
#include "cpu/elf_image.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cpu {

namespace {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

std::string last_dl_error() {
  const char* error = ::dlerror();
  return error ? error : "unknown dynamic loader error";
}

/// Loads through an anonymous memory file. Returns the handle and leaves the memfd open in
/// `memory_file`, or returns nullptr (with `failure` saying why) when this way does not work
/// here: no memfd_create, no /proc, memory files not executable.
void* load_through_memory_file(std::string_view bytes, int& memory_file, std::string& failure) {
  const int fd = ::memfd_create("jitvec-host-module", MFD_CLOEXEC);
  if (fd < 0) {
    failure = fmt::format("memfd_create: {}", std::strerror(errno));
    return nullptr;
  }
  if (!write_all(fd, bytes)) {
    failure = fmt::format("writing the memory file: {}", std::strerror(errno));
    ::close(fd);
    return nullptr;
  }
  const std::string name = fmt::format("/proc/self/fd/{}", fd);
  // The dynamic loader hands back an object already loaded under the same name instead of
  // loading this one. Modules keep their fd open while loaded, so a live module never shares
  // this name; but dlclose keeps some objects mapped (those with STB_GNU_UNIQUE symbols), and
  // one of those may still be registered under it. Then another way must be taken.
  if (void* stale = ::dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    ::dlclose(stale);
    failure = fmt::format("an unloaded module is still registered as {}", name);
    ::close(fd);
    return nullptr;
  }
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    failure = last_dl_error();
    ::close(fd);
    return nullptr;
  }
  memory_file = fd;
  return handle;
}

/// Loads through a temporary file, named uniquely in this process and removed once loaded.
void* load_through_temporary_file(std::string_view bytes, std::string& failure) {
  static std::atomic<unsigned long long> counter{0};
  std::error_code error;
  std::filesystem::path folder = std::filesystem::temp_directory_path(error);
  if (error) folder = "/tmp";
  std::string path = (folder / fmt::format("jitvec-module-{}-{}-XXXXXX", ::getpid(),
                                           counter.fetch_add(1)))
                         .string();
  const int fd = ::mkstemp(path.data());
  if (fd < 0) {
    failure = fmt::format("could not make a temporary file '{}': {}", path, std::strerror(errno));
    return nullptr;
  }
  const bool written = write_all(fd, bytes);
  const int write_error = errno;
  ::close(fd);
  void* handle = nullptr;
  if (!written) {
    failure = fmt::format("could not write '{}': {}", path, std::strerror(write_error));
  } else if ((handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) == nullptr) {
    failure = last_dl_error();
  }
  ::unlink(path.c_str());
  return handle;
}

}  // namespace

HostModule HostModule::load_bytes(std::string_view so_bytes) {
  std::string description = fmt::format("an in-memory object of {} bytes", so_bytes.size());
  // The loader maps segments from the file: one that ends past the file's end would be a
  // SIGBUS on first touch, not an error. Refuse what is not whole first.
  if (auto problem = elf_image_problem(so_bytes)) {
    throw Error(fmt::format("could not load the host module ({}): {}", description, *problem));
  }
  int memory_file = -1;
  std::string memory_failure;
  if (void* handle = load_through_memory_file(so_bytes, memory_file, memory_failure)) {
    return HostModule(handle, memory_file, std::move(description));
  }
  detail::log().debug("loading {} from a memory file failed ({}); using a temporary file",
                      description, memory_failure);
  std::string file_failure;
  if (void* handle = load_through_temporary_file(so_bytes, file_failure)) {
    return HostModule(handle, -1, std::move(description));
  }
  throw Error(fmt::format("could not load the host module ({}): {}", description, file_failure));
}

HostModule HostModule::load_file(const std::string& path) {
  // A name without a slash would make dlopen search the library path instead.
  const std::string name = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw Error(fmt::format("could not load the host module '{}': {}", path, last_dl_error()));
  }
  return HostModule(handle, -1, path);
}

HostModule::HostModule(HostModule&& other) noexcept
    : handle_(other.handle_),
      memory_file_(other.memory_file_),
      description_(std::move(other.description_)) {
  other.handle_ = nullptr;
  other.memory_file_ = -1;
}

HostModule& HostModule::operator=(HostModule&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = other.handle_;
    memory_file_ = other.memory_file_;
    description_ = std::move(other.description_);
    other.handle_ = nullptr;
    other.memory_file_ = -1;
  }
  return *this;
}

HostModule::~HostModule() { release(); }

void HostModule::release() noexcept {
  if (handle_ != nullptr) ::dlclose(handle_);
  if (memory_file_ >= 0) ::close(memory_file_);  // only once the object is closed
  handle_ = nullptr;
  memory_file_ = -1;
}

void* HostModule::symbol(const char* name) const {
  if (handle_ == nullptr) {
    throw Error(fmt::format("symbol '{}' asked of a moved-from host module", name));
  }
  ::dlerror();  // clear any earlier error
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) {
    throw Error(fmt::format("symbol '{}' not found in the host module ({}): {}", name,
                            description_, last_dl_error()));
  }
  return address;
}

}  // namespace jitvec::cpu
