// src/cpu/host_module.hpp: a compiled host shared object, loaded into the process.
//
// A HostModule owns one dlopen handle (RTLD_NOW | RTLD_LOCAL, so two ufuncs' objects never
// see each other's symbols) and closes it when destroyed. load_bytes() loads an object held in
// memory (fresh from compile_shared_object() or read from a cache entry) without leaving a
// file behind: it writes the bytes to an anonymous memory file (memfd) and loads it through
// /proc/self/fd; where that is not possible it writes a private temporary file and removes it
// once loaded. load_file() loads an object file in place.
#pragma once

#include <string>
#include <string_view>

namespace jitvec::cpu {

class HostModule {
 public:
  /// Loads a shared object from its bytes. Throws jitvec::Error, with dlerror()'s text, when
  /// the bytes are not a loadable object for this process, and before any mapping when they
  /// are not a whole ELF image (elf_image.hpp): a truncated object fails, never crashes.
  static HostModule load_bytes(std::string_view so_bytes);
  /// Loads the shared object at `path`. Throws jitvec::Error naming the file and the reason.
  static HostModule load_file(const std::string& path);

  HostModule(HostModule&& other) noexcept;
  HostModule& operator=(HostModule&& other) noexcept;
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;
  ~HostModule();

  /// The address of the exported symbol `name`. Throws jitvec::Error naming the symbol, the
  /// module and dlerror()'s text when the module does not export it.
  void* symbol(const char* name) const;
  /// What was loaded, for messages: the file's path, or "an in-memory object of N bytes".
  const std::string& description() const { return description_; }

 private:
  HostModule(void* handle, int memory_file, std::string description)
      : handle_(handle), memory_file_(memory_file), description_(std::move(description)) {}
  void release() noexcept;

  void* handle_ = nullptr;
  /// The memfd the object was loaded from, kept open while it is loaded, so that no other
  /// module is loaded under the same /proc/self/fd/N name meanwhile; -1 for none.
  int memory_file_ = -1;
  std::string description_;
};

}  // namespace jitvec::cpu
