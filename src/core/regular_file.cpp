#include "core/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace jitvec::detail {
namespace {

/// "it is a FIFO (named pipe), not a regular file", or "" for a regular file.
std::string not_regular(mode_t mode) {
  const char* kind = S_ISREG(mode)    ? nullptr
                     : S_ISDIR(mode)  ? "a directory"
                     : S_ISFIFO(mode) ? "a FIFO (named pipe)"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "not a file";
  return kind ? std::string("it is ") + kind + ", not a regular file" : std::string();
}

}  // namespace

RegularFileRead read_regular_file(const std::filesystem::path& path, std::size_t limit) {
  RegularFileRead result;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    result.problem = std::strerror(errno);
    return result;
  }
  if (!S_ISREG(info.st_mode)) {
    result.problem = not_regular(info.st_mode);
    return result;
  }
  // O_NONBLOCK: should the path name a FIFO by now, opening it does not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    result.problem = std::strerror(errno);
    return result;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &info) != 0) {
    result.problem = std::strerror(errno);
    return result;
  }
  if (!S_ISREG(info.st_mode)) {
    result.problem = not_regular(info.st_mode);
    return result;
  }
  char chunk[1 << 16];
  while (result.contents.size() <= limit) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      result.problem = std::strerror(errno);
      result.contents.clear();
      return result;
    }
    if (got == 0) break;
    result.contents.append(chunk, static_cast<std::size_t>(got));
  }
  return result;
}

}  // namespace jitvec::detail
