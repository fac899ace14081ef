// src/cache/disk_cache.hpp: compiled loops kept on disk between processes.
//
// A DiskCache maps a CacheKey to a CacheEntry file. The writable folder (settings.dir) is
// searched first, then each read-only folder in order; entries fan out over 256 subfolders:
//
//     <folder>/<first 2 hex digits of the key>/<other 30 hex digits>.jvk
//
// Reads take no lock: a store writes a temporary file in the same subfolder and renames it
// over the entry, so a reader sees a whole entry or none, from any thread or process. A load
// compares the entry's stored key fields with the key's, so a digest collision is a miss.
//
// The cache never fails the user's call. A damaged or unreadable entry is a miss (warned once
// per file) and is replaced by the next store; a folder that cannot be created or written (a
// full disk, a read-only file system) turns storing off for the process with one warning; a
// folder or entry that others could have written (see file_trust.hpp) is refused with one
// warning. After each store, the least recently used entries (by modification time, which a
// hit refreshes) are evicted until the writable folder holds at most settings.max_size bytes,
// and temporary files left for an hour by killed writers are deleted.
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
  };

  /// Creates settings.dir (mode 0700) if it is missing and checks that it and the read-only
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

  /// Writes `entry` under `key`, atomically, replacing any entry (damaged or not) there. The
  /// file records key.fields() (the entry's own key_fields are not used) and, if
  /// entry.created is 0, the current time. Never throws for I/O problems.
  void store(const CacheKey& key, const CacheEntry& entry);

  Stats stats() const;

  /// Every entry file of the writable folder, then of each read-only folder, sorted by path
  /// within each folder.
  std::vector<EntryInfo> list() const;
  /// The entry whose key starts with `hex_prefix` (for `jitvec cache show KEY`), nullopt if
  /// none. Throws CacheError if the prefix is not hexadecimal or matches several keys, and
  /// DamagedEntry (or CacheError, if untrusted) if the matching entry cannot be used.
  std::optional<CacheEntry> read_by_key_prefix(std::string_view hex_prefix) const;
  /// Reads every entry file of every folder and reports those that cannot be used.
  VerifyReport verify() const;
  /// Evicts least recently used entries of the writable folder until it holds at most
  /// `max_size` bytes, and deletes temporary files older than an hour.
  PruneReport prune(std::uint64_t max_size);
  /// Deletes every entry and temporary file of the writable folder (and its emptied fan-out
  /// subfolders; nothing else); returns how many entries were deleted.
  std::uint64_t clear();
  /// Bytes of entries in the writable folder.
  std::uint64_t total_size() const;

  /// Where the entry of the key whose digest is `key_hex` lives in `folder`.
  static std::filesystem::path entry_path(const std::filesystem::path& folder,
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
  bool ensure_subfolder(const std::filesystem::path& subfolder);
  void disable_storing(const std::string& reason);
  PruneReport evict_locked(std::uint64_t max_size);

  CacheSettings settings_;
  /// The folders load() and the inspection calls search: the writable one first, if usable.
  std::vector<Folder> folders_;
  std::atomic<bool> store_enabled_{false};
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, stores_{0}, damaged_{0}, evictions_{0};
  /// Serializes this process's scans that delete files (eviction, clear).
  std::mutex maintenance_mutex_;
};

}  // namespace jitvec::cache
