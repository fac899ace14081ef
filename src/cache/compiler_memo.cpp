#include "cache/compiler_memo.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cerrno>
#include <string_view>
#include <system_error>
#include <utility>

#include "cache/atomic_file.hpp"
#include "core/log.hpp"

namespace jitvec::cache {
namespace {

constexpr std::string_view kHeader = "jitvec compiler self-report 1";
constexpr std::size_t kLargestFile = 16 * 1024;

// The user's own regular file at `path`, read whole (at most kLargestFile), never through a
// link; nullopt for anything else.
std::optional<std::string> read_own_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> text;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid() &&
      info.st_size > 0 && static_cast<std::size_t>(info.st_size) <= kLargestFile) {
    std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
    const ssize_t got = ::read(fd, bytes.data(), bytes.size());
    if (got == static_cast<ssize_t>(bytes.size())) text = std::move(bytes);
  }
  ::close(fd);
  return text;
}

// The next line of `text` from `at` (moving `at` past it), or nullopt when no line is left.
std::optional<std::string_view> next_line(std::string_view text, std::size_t& at) {
  if (at >= text.size()) return std::nullopt;
  const std::size_t end = text.find('\n', at);
  if (end == std::string_view::npos) return std::nullopt;  // every line ends in '\n'
  const std::string_view line = text.substr(at, end - at);
  at = end + 1;
  return line;
}

bool one_line(const std::string& text) { return text.find('\n') == std::string::npos; }

}  // namespace

FolderSelfReportMemo::FolderSelfReportMemo(std::filesystem::path cache_folder)
    : folder_(std::move(cache_folder) / kCompilerMemoFolder) {}

std::filesystem::path FolderSelfReportMemo::file_for(const std::string& signature) const {
  return folder_ / fmt::format("{:016x}", XXH3_64bits(signature.data(), signature.size()));
}

std::optional<cpu::CompilerSelfReport> FolderSelfReportMemo::recall(const std::string& signature) {
  const std::optional<std::string> text = read_own_file(file_for(signature));
  if (!text) return std::nullopt;
  std::size_t at = 0;
  const auto header = next_line(*text, at), remembered = next_line(*text, at),
             version = next_line(*text, at), target = next_line(*text, at);
  if (!header || *header != kHeader || !remembered || *remembered != signature || !version ||
      !target || at != text->size()) {
    return std::nullopt;
  }
  return cpu::CompilerSelfReport{std::string(*version), std::string(*target)};
}

void FolderSelfReportMemo::remember(const std::string& signature,
                                    const cpu::CompilerSelfReport& report) {
  if (!one_line(signature) || !one_line(report.version) || !one_line(report.target)) return;
  try {
    if (::mkdir(folder_.c_str(), 0700) != 0 && errno != EEXIST) return;
    struct stat info {};
    // Only into a real folder of the user's own (not a link someone put there).
    if (::lstat(folder_.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) {
      return;
    }
    write_file_atomically(file_for(signature),
                          fmt::format("{}\n{}\n{}\n{}\n", kHeader, signature, report.version, report.target),
                          0600);
  } catch (const std::exception& e) {  // a memo not written only costs the next process time
    detail::log().debug("the host compiler's self-report was not remembered in {}: {}",
                        folder_.string(), e.what());
  }
}

void forget_self_reports(const std::filesystem::path& cache_folder) {
  const std::filesystem::path folder = cache_folder / kCompilerMemoFolder;
  struct stat info {};
  if (::lstat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) return;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const bool ours = is_temporary_file_name(name) ||
                      (name.size() == 16 && name.find_first_not_of("0123456789abcdef") == std::string::npos);
    struct stat file {};
    if (ours && ::lstat(it->path().c_str(), &file) == 0 && S_ISREG(file.st_mode) &&
        file.st_uid == ::geteuid()) {
      ::unlink(it->path().c_str());
    }
  }
  ::rmdir(folder.c_str());  // fails, harmlessly, while it holds anything else
}

}  // namespace jitvec::cache
