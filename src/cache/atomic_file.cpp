#include "cache/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <random>
#include <system_error>
#include <thread>

namespace jitvec::cache {
namespace {

// Name clashes are already unlikely (pid, thread and 64 random bits); O_EXCL makes them safe.
constexpr int kNameAttempts = 8;

[[noreturn]] void throw_errno(int error, std::string_view action,
                              const std::filesystem::path& file) {
  throw std::system_error(error, std::generic_category(),
                          fmt::format("cannot {} {}", action, file.string()));
}

std::filesystem::path temporary_name(const std::filesystem::path& folder) {
  thread_local std::mt19937_64 random(std::random_device{}());
  const auto thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return folder /
         fmt::format("{}{}.{:x}.{:016x}", kTemporaryFilePrefix, getpid(), thread, random());
}

/// A file being written under a temporary name; removed on destruction unless renamed.
class TemporaryFile {
 public:
  TemporaryFile(const std::filesystem::path& folder, mode_t mode) {
    for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
      path_ = temporary_name(folder);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd_ >= 0) return;
      if (errno != EEXIST) break;
    }
    throw_errno(errno, "create", path_);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(path_.c_str());
  }

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0) {
        if (errno == EINTR) continue;
        throw_errno(errno, "write", path_);
      }
      bytes.remove_prefix(static_cast<std::size_t>(written));
    }
  }

  /// Flushes the data to the disk, closes the file and renames it to `target`.
  void commit(const std::filesystem::path& target) {
    if (::fsync(fd_) != 0) throw_errno(errno, "flush", path_);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno(errno, "close", path_);
    if (std::rename(path_.c_str(), target.c_str()) != 0)
      throw_errno(errno, "rename into place", target);
    renamed_ = true;
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool renamed_ = false;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& target, std::string_view bytes,
                           mode_t mode) {
  TemporaryFile file(target.parent_path(), mode);
  file.write(bytes);
  file.commit(target);
}

bool is_temporary_file_name(std::string_view file_name) {
  return file_name.substr(0, kTemporaryFilePrefix.size()) == kTemporaryFilePrefix;
}

}  // namespace jitvec::cache
