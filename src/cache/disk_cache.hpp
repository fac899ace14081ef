// src/cache/disk_cache.hpp: compiled loops kept on disk between processes.
//
// A DiskCache maps a CacheKey to a CacheEntry file. The writable folder (settings.dir) is
// searched first, then each read-only folder in order; entries fan out over 256 subfolders:
//
//     <folder>/<first 2 hex digits of the key>/<other 30 hex digits>.jvk
//
// In a folder shared by several users (sticky, like /tmp), a fan-out subfolder belongs to
// whoever made it first; another user stores the entries that fall in it under a subfolder of
// their own, <folder>/<2 hex digits>.<uid>/, which load() searches first.
//
// Reads take no lock: a store writes a temporary file in the same subfolder and renames it
// over the entry, so a reader sees a whole entry or none, from any thread or process. A load
// compares the entry's stored key fields with the key's, so a digest collision is a miss.
//
// The cache never fails the user's call. A damaged, unreadable or oversized entry (see
// kMaxEntrySize; sizes are checked against the header before anything is read) is a miss
// (warned once per file) and is replaced by the next store; so is an entry whose shared object
// or cubin payload is not a whole ELF image. A failure that concerns the whole folder (a full
// disk, a quota, a read-only file system) turns storing off for the process with one warning;
// one that concerns one entry (a folder has taken its name and cannot be removed, its fan-out
// subfolder and the user's own one are both refused) skips that entry with one warning and
// keeps storing the others. A folder or entry that others could have written (see
// file_trust.hpp: owners and every parent folder are checked) is refused with one warning.
// After each store, the least recently used entries (by modification time, which a hit
// refreshes) are evicted until the writable folder holds at most settings.max_size bytes (files
// larger than kMaxEntrySize go first, whatever the limit), and temporary files left for an hour
// by killed writers are deleted.
//
// The other calls (list, read_by_key_prefix, verify, prune, clear, total_size) serve the
// `jitvec cache` command. Every member function may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/cache_entry.hpp"
#include "cache/cache_key.hpp"
#include "cache/cache_settings.hpp"

namespace jitvec::cache {

/// The largest entry file read: a loop's binaries take kilobytes to a few megabytes, and a
/// larger file (a sparse 1 TiB file, say) is damaged, reported without being read.
inline constexpr std::uint64_t kMaxEntrySize = std::uint64_t{256} << 20;

/// One entry file, as the `jitvec cache list` command shows it.
struct EntryInfo {
  std::filesystem::path path;
  std::string key_hex;
  std::uint64_t size = 0;
  /// The file's modification time: when the entry was stored or last loaded.
  std::chrono::system_clock::time_point last_used;
  /// Found in one of settings.read_only_dirs.
  bool read_only = false;
  /// The entry's key fields; empty when the entry could not be read (see `problem`).
  KeyFields key_fields;
  /// Why the entry cannot be used (damaged, untrusted); empty when it can.
  std::string problem;

  /// The value of the first key field tagged `tag` ("ufunc", "loop", "target", "arch"), or
  /// empty if there is none.
  std::string_view field(std::string_view tag) const;
};

struct EntryProblem {
  std::filesystem::path path;
  std::string reason;
};

struct VerifyReport {
  std::uint64_t checked = 0;
  /// Every entry that is damaged, untrusted, or whose key fields do not hash to its name.
  std::vector<EntryProblem> problems;
};

struct ClearReport {
  std::uint64_t removed_entries = 0;
  /// Folders (or other things that are not entry files) removed from entries' names.
  std::uint64_t removed_other = 0;
  /// What could not be removed or read, and why.
  std::vector<EntryProblem> problems;
};

struct PruneReport {
  std::uint64_t removed_entries = 0;
  std::uint64_t removed_bytes = 0;
  std::uint64_t removed_temporary_files = 0;
  /// Bytes of entries left in the writable folder.
  std::uint64_t remaining_bytes = 0;
};

class DiskCache {
 public:
  /// Counters since the cache was made; each load is one hit or one miss.
  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t stores = 0;     ///< entries written
    std::uint64_t damaged = 0;    ///< damaged or unreadable entry files met by load()
    std::uint64_t evictions = 0;  ///< entries removed to keep under max_size (store, prune)
    std::uint64_t store_failures = 0;  ///< entries not stored for a reason of their own
  };

  /// Creates settings.dir (mode 0700) if it is missing (and settings.create_dir) and checks that it and the read-only
  /// folders can be trusted. Never throws for a folder it cannot use: it warns once and does
  /// without that folder.
  explicit DiskCache(CacheSettings settings);
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  const CacheSettings& settings() const { return settings_; }
  /// Whether store() still writes to disk (the cache is enabled, and its folder is usable and
  /// has not failed a write).
  bool writable() const { return store_enabled_.load(); }

  /// The entry stored under `key`, from the first folder that has a valid one whose key fields
  /// equal key.fields(); nullopt otherwise. A hit in the writable folder refreshes the entry's
  /// modification time.
  std::optional<CacheEntry> load(const CacheKey& key);
  /// The same, for a caller that already holds `key_hex` (== key.hex(), which hashes every field).
  std::optional<CacheEntry> load(const CacheKey& key, const std::string& key_hex);

  /// Writes `entry` under `key`, atomically, replacing any entry (damaged or not) there. The
  /// file records key.fields() (the entry's own key_fields are not used) and, if
  /// entry.created is 0, the current time. Never throws for I/O problems.
  void store(const CacheKey& key, const CacheEntry& entry);

  Stats stats() const;
  /// The folder store() writes to (settings.dir), while it still writes; nullopt otherwise.
  std::optional<std::filesystem::path> writable_path() const;

  /// Every entry file of the writable folder, then of each read-only folder, sorted by path
  /// within each folder.
  std::vector<EntryInfo> list() const;
  /// The entry whose key starts with `hex_prefix` (for `jitvec cache show KEY`), nullopt if
  /// none. Throws CacheError if the prefix is not hexadecimal or matches several keys, and
  /// DamagedEntry (or CacheError, if untrusted) if the matching entry cannot be used.
  std::optional<CacheEntry> read_by_key_prefix(std::string_view hex_prefix) const;
  /// Reads every entry file of every folder and reports those that cannot be used, with the
  /// folders that were refused or could not be read.
  VerifyReport verify() const;
  /// Evicts least recently used entries of the writable folder until it holds at most
  /// `max_size` bytes, and deletes temporary files older than an hour.
  PruneReport prune(std::uint64_t max_size);
  /// Deletes every entry and temporary file of the writable folder, whatever the user owns
  /// under an entry's name (a folder), and its emptied fan-out subfolders; nothing else.
  ClearReport clear();
  /// Bytes of entries in the writable folder.
  std::uint64_t total_size() const;

  /// Where the entry of the key whose digest is `key_hex` lives in `folder`.
  static std::filesystem::path entry_path(const std::filesystem::path& folder,
                                          std::string_view key_hex);
  /// Where the current user stores that entry instead when the fan-out subfolder of
  /// entry_path() belongs to another user (a shared sticky folder): <folder>/<2 hex>.<uid>/.
  static std::filesystem::path own_entry_path(const std::filesystem::path& folder,
                                              std::string_view key_hex);

 private:
  struct Folder {
    std::filesystem::path path;
    bool read_only = false;
  };

  /// Debug log of why `key` missed: how it differs from cached entries of the same ufunc.
  void explain_miss(const CacheKey& key) const;
  void open_writable_folder();
  void add_read_only_folder(const std::filesystem::path& path);
  const Folder* writable_folder() const;
  /// Creates a fan-out subfolder if missing; why it cannot be trusted, or nullopt. Throws
  /// std::system_error when it cannot be made or inspected.
  std::optional<std::string> ensure_subfolder(const std::filesystem::path& subfolder);
  void disable_storing(const std::string& reason);
  /// One entry could not be stored: warn once for it, count it, keep storing others.
  void skip_entry(const std::filesystem::path& file, const std::string& reason);
  void refuse_folder(const std::filesystem::path& path, const std::string& why,
                     const std::string& warning);
  PruneReport evict_locked(std::uint64_t max_size);

  CacheSettings settings_;
  /// The folders load() and the inspection calls search: the writable one first, if usable.
  std::vector<Folder> folders_;
  /// Folders of the settings that are not used, and why (for verify()).
  std::vector<EntryProblem> refused_folders_;
  std::atomic<bool> store_enabled_{false};
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, stores_{0}, damaged_{0}, evictions_{0},
      store_failures_{0};
  /// Serializes this process's scans that delete files (eviction, clear).
  std::mutex maintenance_mutex_;
};

}  // namespace jitvec::cache
