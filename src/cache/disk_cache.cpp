#include "cache/disk_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include "cache/atomic_file.hpp"
#include "cache/compiler_memo.hpp"
#include "cache/file_trust.hpp"
#include "core/log.hpp"
#include "cpu/elf_image.hpp"

namespace jitvec::cache {
namespace {

using Clock = std::chrono::system_clock;

constexpr std::string_view kEntryExtension = ".jvk";
constexpr std::size_t kKeyHexLength = 32;
constexpr std::size_t kFanOutLength = 2;
constexpr std::size_t kEntryFileNameLength = kKeyHexLength - kFanOutLength + kEntryExtension.size();
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);
constexpr mode_t kFolderMode = 0700;
constexpr mode_t kEntryMode = 0644;
constexpr std::size_t kAmbiguousKeysShown = 4;

bool is_lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string errno_text(int error) { return std::generic_category().message(error); }

Clock::time_point to_time_point(const timespec& time) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::seconds(time.tv_sec) + std::chrono::nanoseconds(time.tv_nsec)));
}

/// A file met while scanning a folder's fan-out subfolders.
struct ScannedFile {
  std::filesystem::path path;
  std::string key_hex;  ///< empty for temporary files
  std::uint64_t size = 0;
  Clock::time_point modified;
  /// A regular file; an entry name can also be taken by a folder, a link, a FIFO ...
  bool regular = true;
  uid_t owner = 0;
};

struct FolderScan {
  std::vector<ScannedFile> entries;  ///< sorted by path; regular files or not
  std::vector<ScannedFile> temporary_files;
  std::vector<std::filesystem::path> subfolders;
  /// Folders that could not be read, and why: their entries were not seen.
  std::vector<EntryProblem> unreadable;
};

bool is_entry_file_name(std::string_view name) {
  return name.size() == kEntryFileNameLength &&
         name.substr(name.size() - kEntryExtension.size()) == kEntryExtension &&
         is_lower_hex(name.substr(0, name.size() - kEntryExtension.size()));
}

/// "3f" (the shared fan-out subfolder) or "3f.1000" (user 1000's own, for when "3f" belongs
/// to another user of a shared folder).
bool is_fan_out_name(std::string_view name) {
  if (name.size() < kFanOutLength || !is_lower_hex(name.substr(0, kFanOutLength))) return false;
  if (name.size() == kFanOutLength) return true;
  const std::string_view uid = name.substr(kFanOutLength + 1);
  return name[kFanOutLength] == '.' && !uid.empty() && uid.size() <= 10 &&
         std::all_of(uid.begin(), uid.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The entry files and temporary files of `folder`. Only names the cache itself makes are
/// reported, so that nothing else in a misconfigured folder (say $HOME) is ever deleted.
FolderScan scan_folder(const std::filesystem::path& folder) {
  FolderScan scan;
  std::error_code error;
  std::filesystem::directory_iterator sub(folder, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    scan.unreadable.push_back({folder, "unreadable folder (" + error.message() + ")"});
  }
  for (std::filesystem::directory_iterator end; !error && sub != end; sub.increment(error)) {
    const std::string subfolder_name = sub->path().filename().string();
    struct stat sub_info {};
    if (!is_fan_out_name(subfolder_name) || ::lstat(sub->path().c_str(), &sub_info) != 0 ||
        !S_ISDIR(sub_info.st_mode)) {
      continue;
    }
    const std::string prefix = subfolder_name.substr(0, kFanOutLength);
    scan.subfolders.push_back(sub->path());
    std::error_code sub_error;
    std::filesystem::directory_iterator file(sub->path(), sub_error);
    if (sub_error) {
      scan.unreadable.push_back(
          {sub->path(), "unreadable folder (" + sub_error.message() + "); its entries were not "
                                                                        "checked"});
      continue;
    }
    for (; !sub_error && file != end; file.increment(sub_error)) {
      const std::string name = file->path().filename().string();
      struct stat info {};
      if (::lstat(file->path().c_str(), &info) != 0) continue;
      ScannedFile found{file->path(),
                        {},
                        static_cast<std::uint64_t>(info.st_size),
                        to_time_point(info.st_mtim),
                        S_ISREG(info.st_mode),
                        info.st_uid};
      if (is_temporary_file_name(name) && found.regular) {
        scan.temporary_files.push_back(std::move(found));
      } else if (is_entry_file_name(name)) {
        if (!found.regular) found.size = 0;
        found.key_hex = prefix + name.substr(0, name.size() - kEntryExtension.size());
        scan.entries.push_back(std::move(found));
      }
    }
    if (sub_error) {
      scan.unreadable.push_back({sub->path(), "unreadable folder (" + sub_error.message() + ")"});
    }
  }
  std::sort(scan.entries.begin(), scan.entries.end(),
            [](const ScannedFile& a, const ScannedFile& b) { return a.path < b.path; });
  return scan;
}

enum class ReadStatus { absent, valid, damaged, untrusted };

struct EntryRead {
  ReadStatus status = ReadStatus::absent;
  CacheEntry entry;
  std::string problem;  ///< for damaged and untrusted
};

EntryRead damaged(std::string problem) { return {ReadStatus::damaged, {}, std::move(problem)}; }
EntryRead untrusted(std::string problem) { return {ReadStatus::untrusted, {}, std::move(problem)}; }

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

/// Why a payload that will be mapped or parsed as an ELF image (a host shared object, a
/// cubin) is not a whole one; a checksum cannot tell.
std::optional<std::string> payload_problem(const CacheEntry& entry) {
  for (const Payload& payload : entry.payloads) {
    if (payload.bytes.empty() || (payload.kind != payload_kind::shared_object &&
                                  payload.kind != payload_kind::cubin)) {
      continue;
    }
    if (auto problem = cpu::elf_image_problem(payload.bytes)) {
      return fmt::format("damaged payload '{}': {}", payload.kind, *problem);
    }
  }
  return std::nullopt;
}

/// Reads and parses one entry file, with no lock, after checking that it and its folder may
/// be trusted. Never throws for what it finds on disk.
EntryRead read_entry_file(const std::filesystem::path& file) {
  struct stat folder_info {};
  if (::stat(file.parent_path().c_str(), &folder_info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return {};
    return damaged(fmt::format("unreadable (its folder: {})", errno_text(errno)));
  }
  if (auto why = folder_distrust(folder_info)) {
    return untrusted(
        fmt::format("its folder {} is refused: {}", file.parent_path().string(), *why));
  }
  // O_NONBLOCK: a FIFO planted under an entry's name must not hang the reader.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    if (errno == ELOOP) return damaged("unreadable (it is a symbolic link)");
    return damaged(fmt::format("unreadable ({})", errno_text(errno)));
  }
  const FileDescriptor descriptor(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return damaged(fmt::format("unreadable ({})", errno_text(errno)));
  if (S_ISDIR(info.st_mode)) {
    return damaged("unusable: a folder has its name (jitvec cache clear removes it)");
  }
  if (!S_ISREG(info.st_mode)) return damaged("unreadable (it is not a regular file)");
  if (auto why = entry_file_distrust(info)) return untrusted(*why);

  // Sizes come from the file system and the header, never from a count inside the entry: a
  // huge (even sparse) file is refused before a byte of it is read or a byte allocated.
  const auto file_size = static_cast<std::uint64_t>(info.st_size);
  if (file_size > kMaxEntrySize) {
    return damaged(fmt::format("too large ({} bytes; jitvec writes no entry over {} bytes)",
                               file_size, kMaxEntrySize));
  }
  // The header says how big the entry is: compare it with the file before reading the rest.
  // The entry goes into an uninitialized buffer: a std::string resized to the file's size
  // would first zero-fill it, a pass over the whole entry (700 KB for a GPU loop) on every
  // warm start, before the read writes it again.
  std::unique_ptr<char[]> bytes;
  std::size_t have = 0;
  std::size_t wanted = static_cast<std::size_t>(std::min<std::uint64_t>(file_size, kEntryHeaderSize));
  char header[kEntryHeaderSize];
  for (int part = 0; part < 2; ++part) {
    char* into = header;
    if (part == 1) {
      try {
        const std::uint64_t declared = read_entry_size(std::string_view(header, have), file.string());
        if (declared != file_size) {
          return damaged(declared > file_size
                             ? fmt::format("truncated ({} of {} bytes)", file_size, declared)
                             : fmt::format("trailing bytes ({} bytes where the entry says {})",
                                           file_size, declared));
        }
      } catch (const DamagedEntry& error) {
        return damaged(error.reason());
      }
      try {
        bytes.reset(new char[static_cast<std::size_t>(file_size)]);
      } catch (const std::bad_alloc&) {
        return damaged(fmt::format("unreadable (no memory for its {} bytes)", file_size));
      }
      std::memcpy(bytes.get(), header, have);
      into = bytes.get();
      wanted = static_cast<std::size_t>(file_size);
    }
    while (have < wanted) {
      const ssize_t got = ::pread(fd, into + have, wanted - have, static_cast<off_t>(have));
      if (got == 0) break;  // the file shrank since fstat
      if (got < 0) {
        if (errno == EINTR) continue;
        return damaged(fmt::format("unreadable ({})", errno_text(errno)));
      }
      have += static_cast<std::size_t>(got);
    }
    if (have < wanted) break;  // parse() names what is missing
  }
  const std::string_view entry_bytes(bytes ? bytes.get() : header, have);
  try {
    CacheEntry entry = parse(entry_bytes, file.string());
    if (auto problem = payload_problem(entry)) return damaged(*problem);
    return {ReadStatus::valid, std::move(entry), {}};
  } catch (const DamagedEntry& error) {
    return damaged(error.reason());
  } catch (const std::bad_alloc&) {
    return damaged(fmt::format("unreadable (no memory to parse its {} bytes)", file_size));
  }
}

/// Creates `dir` and its missing parents with mode 0700. Returns why it failed, if it did.
std::optional<std::string> make_private_folders(const std::filesystem::path& dir) {
  std::filesystem::path partial;
  for (const auto& part : dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), kFolderMode) != 0 && errno != EEXIST) {
      return fmt::format("{} ({})", errno_text(errno), partial.string());
    }
  }
  return std::nullopt;
}

std::string ascii_lower(std::string_view text) {
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower;
}

}  // namespace

std::string_view EntryInfo::field(std::string_view tag) const {
  for (const auto& [field_tag, value] : key_fields) {
    if (field_tag == tag) return value;
  }
  return {};
}

DiskCache::DiskCache(CacheSettings settings) : settings_(std::move(settings)) {
  if (settings_.disabled) {
    detail::log().debug("kernel disk cache disabled; compiled code is kept in memory only");
    return;
  }
  open_writable_folder();
  for (const auto& dir : settings_.read_only_dirs) add_read_only_folder(dir);
}

void DiskCache::refuse_folder(const std::filesystem::path& path, const std::string& why,
                              const std::string& warning) {
  detail::warn_once("cache:refused:" + path.string(), warning);
  refused_folders_.push_back({path, why});
}

void DiskCache::open_writable_folder() {
  const auto& dir = settings_.dir;
  if (dir.empty()) {
    detail::warn_once("cache:no-folder",
                      "jitvec found no folder for its kernel cache (set JITVEC_CACHE_DIR or HOME); "
                      "compiled code is kept in memory only");
    return;
  }
  if (!settings_.create_dir) {
    struct stat info {};
    if (::stat(dir.c_str(), &info) != 0 && errno == ENOENT) {
      detail::log().debug("kernel cache folder {} does not exist", dir.string());
      return;
    }
  } else if (auto failure = make_private_folders(dir)) {
    detail::warn_once(
        "cache:unwritable:" + dir.string(),
        fmt::format("jitvec cannot create its kernel cache folder {}: {}; compiled code is "
                    "kept in memory only",
                    dir.string(), *failure));
    refused_folders_.push_back({dir, "cannot be created: " + *failure});
    return;
  }
  if (auto why = folder_chain_distrust(dir)) {
    refuse_folder(dir, "refused: " + *why,
                  fmt::format("jitvec refuses its kernel cache folder {}: {}; compiled code is "
                              "kept in memory only",
                              dir.string(), *why));
    return;
  }
  folders_.push_back(Folder{dir, false});
  store_enabled_ = true;
}

void DiskCache::add_read_only_folder(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) {
      detail::log().debug("read-only kernel cache folder {} does not exist; skipped",
                          path.string());
    } else {
      refuse_folder(path, "unusable: " + errno_text(errno),
                    fmt::format("jitvec cannot use the read-only kernel cache folder {}: {}",
                                path.string(), errno_text(errno)));
    }
    return;
  }
  if (auto why = folder_chain_distrust(path)) {
    refuse_folder(path, "refused: " + *why,
                  fmt::format("jitvec refuses the read-only kernel cache folder {}: {}",
                              path.string(), *why));
    return;
  }
  folders_.push_back(Folder{path, true});
}

const DiskCache::Folder* DiskCache::writable_folder() const {
  if (folders_.empty() || folders_.front().read_only) return nullptr;
  return &folders_.front();
}

std::filesystem::path DiskCache::entry_path(const std::filesystem::path& folder,
                                            std::string_view key_hex) {
  return folder / key_hex.substr(0, kFanOutLength) /
         (std::string(key_hex.substr(kFanOutLength)) + std::string(kEntryExtension));
}

std::filesystem::path DiskCache::own_entry_path(const std::filesystem::path& folder,
                                                std::string_view key_hex) {
  return folder /
         fmt::format("{}.{}", key_hex.substr(0, kFanOutLength), static_cast<unsigned>(::geteuid())) /
         (std::string(key_hex.substr(kFanOutLength)) + std::string(kEntryExtension));
}

std::optional<CacheEntry> DiskCache::load(const CacheKey& key) {
  return load(key, folders_.empty() ? std::string() : key.hex());
}

std::optional<CacheEntry> DiskCache::load(const CacheKey& key, const std::string& hex) {
  for (const Folder& folder : folders_) {
    // The user's own subfolder first: it exists only where the shared one belongs to another
    // user, whose entries would be refused (with a warning) anyway.
    for (const auto& file : {own_entry_path(folder.path, hex), entry_path(folder.path, hex)}) {
      EntryRead read = read_entry_file(file);
      switch (read.status) {
        case ReadStatus::absent:
          continue;
        case ReadStatus::damaged:
          ++damaged_;
          // Keyed by the problem too: the same file damaged another way is worth a new warning.
          detail::warn_once(
              "cache:damaged:" + file.string() + ":" + read.problem,
              fmt::format("jitvec ignores the damaged kernel cache entry {}: {}{}", file.string(),
                          read.problem, folder.read_only ? "" : "; the next store replaces it"));
          continue;
        case ReadStatus::untrusted:
          detail::warn_once(
              "cache:untrusted:" + file.string() + ":" + read.problem,
              fmt::format("jitvec refuses the kernel cache entry {}: {}", file.string(),
                          read.problem));
          continue;
        case ReadStatus::valid:
          if (read.entry.key_fields != key.fields()) {
            detail::log().debug(
                "kernel cache entry {} was stored for another key ({}); treated as a miss",
                file.string(), describe_difference(read.entry.key_fields, key.fields()));
            continue;
          }
          if (!folder.read_only) {
            // The modification time is the entry's last use, for eviction; failing to set it
            // only makes the entry look older.
            ::utimensat(AT_FDCWD, file.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
          }
          ++hits_;
          detail::log().debug("kernel cache hit: {}", file.native());
          return std::move(read.entry);
      }
    }
  }
  ++misses_;
  if (detail::log().should_log(spdlog::level::debug)) explain_miss(key);
  return std::nullopt;
}

void DiskCache::explain_miss(const CacheKey& key) const {
  std::string_view ufunc;
  for (const auto& [tag, value] : key.fields()) {
    if (tag == "ufunc") ufunc = value;
  }
  int explained = 0;
  for (const EntryInfo& entry : list()) {
    if (ufunc.empty() || entry.field("ufunc") != ufunc || !entry.problem.empty()) continue;
    detail::log().debug("kernel cache miss for '{}' (key {}): entry {} of the same ufunc differs: {}",
                        ufunc, key.hex(), entry.key_hex,
                        describe_difference(entry.key_fields, key.fields()));
    if (++explained == 3) break;  // the first few say enough
  }
  if (explained == 0) {
    detail::log().debug("kernel cache miss for '{}' (key {}): no entry of this ufunc is cached",
                        ufunc, key.hex());
  }
}

namespace {

/// Whether a failed write says the whole folder cannot take entries (a full disk, a quota, a
/// read-only file system, a size limit), rather than something about one entry's path.
bool folder_wide_failure(const std::error_code& code) {
  switch (code.value()) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EROFS:
    case EIO:
      return true;
    default:
      return false;
  }
}

/// Removes what has taken an entry's name, when it is not a file (a folder, say) and the user
/// owns it; returns whether the name is free now.
bool free_entry_name(const std::filesystem::path& file) {
  struct stat info {};
  if (::lstat(file.c_str(), &info) != 0) return errno == ENOENT;
  if (S_ISREG(info.st_mode) || info.st_uid != ::geteuid()) return false;
  std::error_code error;
  std::filesystem::remove_all(file, error);
  return !error;
}

}  // namespace

std::optional<std::string> DiskCache::ensure_subfolder(const std::filesystem::path& subfolder) {
  if (::mkdir(subfolder.c_str(), kFolderMode) != 0 && errno != EEXIST) {
    throw std::system_error(errno, std::generic_category(), "cannot create " + subfolder.string());
  }
  struct stat info {};
  if (::stat(subfolder.c_str(), &info) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot inspect " + subfolder.string());
  }
  return folder_distrust(info);
}

void DiskCache::disable_storing(const std::string& reason) {
  store_enabled_ = false;
  detail::warn_once(
      "cache:unwritable:" + settings_.dir.string(),
      fmt::format("jitvec cannot write to its kernel cache folder {} ({}); compiled code is kept "
                  "in memory only from now on",
                  settings_.dir.string(), reason));
}

void DiskCache::skip_entry(const std::filesystem::path& file, const std::string& reason) {
  ++store_failures_;
  detail::warn_once("cache:store-failed:" + file.string(),
                    fmt::format("jitvec cannot store the kernel cache entry {} ({}); that loop is "
                                "kept in memory only, other entries are still stored",
                                file.string(), reason));
}

void DiskCache::store(const CacheKey& key, const CacheEntry& entry) {
  const Folder* folder = writable_folder();
  if (!store_enabled_.load() || folder == nullptr) return;
  auto file = entry_path(folder->path, key.hex());
  CacheEntry stored{key.fields(), entry.payloads, entry.created};
  if (stored.created == 0) {
    stored.created =
        std::chrono::duration_cast<std::chrono::seconds>(Clock::now().time_since_epoch()).count();
  }
  const std::string bytes = serialize(stored);
  for (int attempt = 1;; ++attempt) {
    try {
      if (auto why = ensure_subfolder(file.parent_path())) {
        // The shared subfolder belongs to someone else (another user of a shared sticky
        // folder made it): store in the user's own subfolder instead, which load() reads first.
        const auto own = own_entry_path(folder->path, key.hex());
        std::optional<std::string> own_why;
        if (file != own) own_why = ensure_subfolder(own.parent_path());
        if (file == own || own_why) {
          skip_entry(file, fmt::format("its folder {} is refused: {}",
                                       file.parent_path().string(), own_why ? *own_why : *why));
          return;
        }
        detail::log().debug("kernel cache folder {} is refused ({}); storing under {}",
                            file.parent_path().string(), *why, own.parent_path().string());
        file = own;
      }
      write_file_atomically(file, bytes, kEntryMode);
      break;
    } catch (const std::system_error& error) {
      // A concurrent clear() can remove the subfolder or the temporary file: try once more.
      if (error.code() == std::errc::no_such_file_or_directory && attempt == 1) continue;
      if (folder_wide_failure(error.code())) {
        disable_storing(error.what());
        return;
      }
      // Something else holds the entry's name (a folder): remove it if it is the user's.
      if (attempt == 1 && free_entry_name(file)) {
        detail::log().debug("removed what took the name of kernel cache entry {}", file.string());
        continue;
      }
      skip_entry(file, error.what());
      return;
    }
  }
  ++stores_;
  detail::log().debug("kernel cache store: {} ({} bytes)", file.string(), bytes.size());
  const std::lock_guard<std::mutex> lock(maintenance_mutex_);
  evict_locked(settings_.max_size);
}

PruneReport DiskCache::evict_locked(std::uint64_t max_size) {
  PruneReport report;
  const Folder* folder = writable_folder();
  if (folder == nullptr) return report;
  FolderScan scan = scan_folder(folder->path);

  const auto stale_before = Clock::now() - kStaleTemporaryAge;
  for (const auto& temporary : scan.temporary_files) {
    if (temporary.modified < stale_before && ::unlink(temporary.path.c_str()) == 0) {
      ++report.removed_temporary_files;
      detail::log().debug("removed stale temporary file {}", temporary.path.string());
    }
  }

  // Files too large to be entries go first, whatever max_size: they can never load, and
  // counting them would evict every good entry before them.
  std::vector<ScannedFile> entries;
  for (auto& entry : scan.entries) {
    if (entry.regular) entries.push_back(std::move(entry));
  }
  std::uint64_t total = 0;
  for (const auto& entry : entries) total += entry.size;
  const auto oversized = [](const ScannedFile& entry) { return entry.size > kMaxEntrySize; };
  if (total > max_size || std::any_of(entries.begin(), entries.end(), oversized)) {
    std::sort(entries.begin(), entries.end(), [&](const ScannedFile& a, const ScannedFile& b) {
      return std::make_tuple(!oversized(a), a.modified, a.path) <
             std::make_tuple(!oversized(b), b.modified, b.path);
    });
    for (const auto& entry : entries) {
      if (total <= max_size && !oversized(entry)) break;
      total -= entry.size;
      // Another process may have evicted it already; then it is gone all the same.
      if (::unlink(entry.path.c_str()) == 0) {
        ++report.removed_entries;
        report.removed_bytes += entry.size;
        ++evictions_;
        detail::log().debug("evicted kernel cache entry {} ({} bytes)", entry.path.string(),
                            entry.size);
      }
    }
  }
  report.remaining_bytes = total;
  return report;
}

PruneReport DiskCache::prune(std::uint64_t max_size) {
  const std::lock_guard<std::mutex> lock(maintenance_mutex_);
  return evict_locked(max_size);
}

ClearReport DiskCache::clear() {
  const std::lock_guard<std::mutex> lock(maintenance_mutex_);
  ClearReport report;
  const Folder* folder = writable_folder();
  if (folder == nullptr) return report;
  FolderScan scan = scan_folder(folder->path);
  for (const auto& entry : scan.entries) {
    if (entry.regular) {
      if (::unlink(entry.path.c_str()) == 0) ++report.removed_entries;
    } else if (free_entry_name(entry.path)) {
      ++report.removed_other;
    } else {
      report.problems.push_back(
          {entry.path, "cannot remove what has taken this entry's name (owned by user " +
                           std::to_string(entry.owner) + ")"});
    }
  }
  for (const auto& temporary : scan.temporary_files) ::unlink(temporary.path.c_str());
  // Fails, harmlessly, for a subfolder that still holds something else or a new entry.
  // Another user's (in a shared folder) is theirs to remove.
  for (const auto& subfolder : scan.subfolders) {
    struct stat info {};
    if (::lstat(subfolder.c_str(), &info) == 0 && info.st_uid == ::geteuid()) {
      ::rmdir(subfolder.c_str());
    }
  }
  for (auto& unreadable : scan.unreadable) report.problems.push_back(std::move(unreadable));
  forget_self_reports(folder->path);
  return report;
}

std::optional<std::filesystem::path> DiskCache::writable_path() const {
  const Folder* folder = writable_folder();
  if (folder == nullptr || !writable()) return std::nullopt;
  return folder->path;
}

std::uint64_t DiskCache::total_size() const {
  const Folder* folder = writable_folder();
  if (folder == nullptr) return 0;
  std::uint64_t total = 0;
  for (const auto& entry : scan_folder(folder->path).entries) {
    if (entry.regular) total += entry.size;
  }
  return total;
}

DiskCache::Stats DiskCache::stats() const {
  Stats stats;
  stats.hits = hits_.load();
  stats.misses = misses_.load();
  stats.stores = stores_.load();
  stats.damaged = damaged_.load();
  stats.evictions = evictions_.load();
  stats.store_failures = store_failures_.load();
  return stats;
}

std::vector<EntryInfo> DiskCache::list() const {
  std::vector<EntryInfo> infos;
  for (const Folder& folder : folders_) {
    for (const auto& file : scan_folder(folder.path).entries) {
      EntryRead read = read_entry_file(file.path);
      if (read.status == ReadStatus::absent) continue;  // removed since the scan
      EntryInfo info;
      info.path = file.path;
      info.key_hex = file.key_hex;
      info.size = file.size;
      info.last_used = file.modified;
      info.read_only = folder.read_only;
      if (read.status == ReadStatus::valid) {
        info.key_fields = std::move(read.entry.key_fields);
      } else {
        info.problem =
            read.status == ReadStatus::untrusted ? "untrusted: " + read.problem : read.problem;
      }
      infos.push_back(std::move(info));
    }
  }
  return infos;
}

VerifyReport DiskCache::verify() const {
  VerifyReport report;
  report.problems = refused_folders_;
  for (const Folder& folder : folders_) {
    FolderScan scan = scan_folder(folder.path);
    for (auto& unreadable : scan.unreadable) report.problems.push_back(std::move(unreadable));
    for (const auto& file : scan.entries) {
      const EntryRead read = read_entry_file(file.path);
      if (read.status == ReadStatus::absent) continue;
      ++report.checked;
      if (read.status == ReadStatus::damaged) {
        report.problems.push_back({file.path, read.problem});
      } else if (read.status == ReadStatus::untrusted) {
        report.problems.push_back({file.path, "untrusted: " + read.problem});
      } else {
        CacheKey key;
        for (const auto& [tag, value] : read.entry.key_fields) key.add(tag, value);
        if (const std::string hex = key.hex(); hex != file.key_hex) {
          report.problems.push_back(
              {file.path,
               fmt::format("misplaced: its key fields hash to {}, not to its file name", hex)});
        }
      }
    }
  }
  return report;
}

std::optional<CacheEntry> DiskCache::read_by_key_prefix(std::string_view hex_prefix) const {
  const std::string prefix = ascii_lower(hex_prefix);
  if (prefix.empty() || prefix.size() > kKeyHexLength || !is_lower_hex(prefix)) {
    throw CacheError(
        fmt::format("'{}' is not a cache key or key prefix: expected 1 to {} hexadecimal digits",
                    hex_prefix, kKeyHexLength));
  }
  std::vector<std::filesystem::path> copies;  // of the one matching key, in search order
  std::set<std::string> keys;
  for (const Folder& folder : folders_) {
    for (const auto& file : scan_folder(folder.path).entries) {
      if (file.key_hex.compare(0, prefix.size(), prefix) != 0) continue;
      keys.insert(file.key_hex);
      copies.push_back(file.path);
    }
  }
  if (keys.size() > 1) {
    std::vector<std::string> shown(
        keys.begin(), std::next(keys.begin(), std::min(keys.size(), kAmbiguousKeysShown)));
    throw CacheError(fmt::format("cache key prefix '{}' is ambiguous: it matches {} keys ({}{})",
                                 hex_prefix, keys.size(), fmt::join(shown, ", "),
                                 keys.size() > shown.size() ? ", ..." : ""));
  }
  std::optional<EntryRead> first_problem;
  std::filesystem::path first_problem_path;
  for (const auto& path : copies) {
    EntryRead read = read_entry_file(path);
    if (read.status == ReadStatus::valid) return std::move(read.entry);
    if (read.status != ReadStatus::absent && !first_problem) {
      first_problem = std::move(read);
      first_problem_path = path;
    }
  }
  if (!first_problem) return std::nullopt;
  if (first_problem->status == ReadStatus::damaged)
    throw DamagedEntry(first_problem->problem, first_problem_path.string());
  throw CacheError(fmt::format("refusing cache entry {}: {}", first_problem_path.string(),
                               first_problem->problem));
}

}  // namespace jitvec::cache
