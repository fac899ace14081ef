// src/cli/cache_command.cpp: `jitvec cache list|show|stats|verify|prune|clear`, which inspect
// and tidy the kernel cache folders.
//
// Each subcommand opens the folders jitvec would use (--cache-dir for the writable one, else
// JITVEC_CACHE_DIR, ...; JITVEC_CACHE_PATH for the read-only ones) and calls the matching
// cache::DiskCache function. JITVEC_CACHE_DISABLE does not hide the folders from these
// commands; `stats` reports it. list, stats and verify also write JSON (--json) for scripts,
// through toml++'s JSON formatter.
#include <fmt/format.h>
#include <sys/stat.h>
#include <toml++/toml.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_cache.hpp"
#include "cli/command.hpp"
#include "cli/text_format.hpp"

namespace jitvec::cli {
namespace {

struct CacheArguments {
  std::string cache_dir;
  bool cache_dir_given = false;
  bool json = false;
  std::string key;
  std::string max_size;
};

/// The settings jitvec would use, with --cache-dir for the writable folder. These commands
/// never create the folder; a --cache-dir that is empty or names no folder is a usage error,
/// while a default folder that does not exist yet is simply empty.
cache::CacheSettings settings_for(const CacheArguments& args) {
  cache::CacheOverrides overrides;
  if (args.cache_dir_given) {
    if (args.cache_dir.empty()) throw UsageError("--cache-dir: the folder name is empty");
    struct stat info {};
    if (::stat(args.cache_dir.c_str(), &info) != 0) {
      throw UsageError(fmt::format("--cache-dir: the cache folder '{}' does not exist",
                                   args.cache_dir));
    }
    if (!S_ISDIR(info.st_mode)) {
      throw UsageError(fmt::format("--cache-dir: '{}' is not a folder", args.cache_dir));
    }
    overrides.dir = args.cache_dir;
  }
  cache::CacheSettings settings = cache::resolve_cache_settings(overrides);
  settings.create_dir = false;
  return settings;
}

/// The cache with its folders open, whether or not JITVEC_CACHE_DISABLE is set.
std::unique_ptr<cache::DiskCache> open_cache(const CacheArguments& args) {
  cache::CacheSettings settings = settings_for(args);
  settings.disabled = false;
  if (!settings.dir.empty() && !std::filesystem::exists(settings.dir)) {
    fmt::print(stderr, "jitvec: note: the cache folder {} does not exist yet (nothing was stored "
                       "there)\n",
               settings.dir.string());
  }
  return std::make_unique<cache::DiskCache>(std::move(settings));
}

std::int64_t json_int(std::uint64_t value) { return static_cast<std::int64_t>(value); }

void print_json(const toml::table& document) {
  std::cout << toml::json_formatter(document) << "\n";
}

std::string field_or_dash(const cache::EntryInfo& entry, std::string_view tag) {
  const std::string_view value = entry.field(tag);
  return value.empty() ? std::string("-") : std::string(value);
}

// ---- list ----

int run_list(const CacheArguments& args) {
  const std::vector<cache::EntryInfo> entries = open_cache(args)->list();
  if (args.json) {
    toml::array list;
    for (const cache::EntryInfo& entry : entries) {
      list.push_back(toml::table{
          {"key", entry.key_hex},
          {"path", entry.path.string()},
          {"size", json_int(entry.size)},
          {"last_used", utc_time(entry.last_used)},
          {"read_only", entry.read_only},
          {"ufunc", std::string(entry.field("ufunc"))},
          {"loop", std::string(entry.field("loop"))},
          {"target", std::string(entry.field("target"))},
          {"arch", std::string(entry.field("arch"))},
          {"problem", entry.problem},
      });
    }
    print_json(toml::table{{"entries", std::move(list)}});
    return kExitSuccess;
  }
  for (const cache::EntryInfo& entry : entries) {
    fmt::print("{}  {:<6} {:>9}  {}  {} {}{}{}\n", entry.key_hex, field_or_dash(entry, "arch"),
               human_size(entry.size), utc_time(entry.last_used), field_or_dash(entry, "ufunc"),
               field_or_dash(entry, "loop"), entry.read_only ? "  (read-only)" : "",
               entry.problem.empty() ? "" : "  PROBLEM: " + entry.problem);
  }
  fmt::print("{} entries\n", entries.size());
  return kExitSuccess;
}

// ---- show ----

int run_show(const CacheArguments& args) {
  const std::unique_ptr<cache::DiskCache> disk = open_cache(args);
  const std::optional<cache::CacheEntry> entry = disk->read_by_key_prefix(args.key);
  if (!entry) {
    throw Error(fmt::format("no cache entry's key starts with '{}' (in {})", args.key,
                            disk->settings().dir.string()));
  }
  cache::CacheKey key;
  for (const auto& [tag, value] : entry->key_fields) key.add(tag, value);
  const std::string key_hex = key.hex();
  fmt::print("key: {}\n", key_hex);
  for (const cache::EntryInfo& info : disk->list()) {
    if (info.key_hex == key_hex) fmt::print("file: {}\n", info.path.string());
  }
  fmt::print("created: {}\n",
             utc_time(std::chrono::system_clock::time_point(std::chrono::seconds(entry->created))));
  fmt::print("key fields:\n");
  for (const auto& [tag, value] : entry->key_fields) {
    if (value.find('\n') == std::string::npos) {
      fmt::print("  {}: {}\n", tag, value);
    } else {
      fmt::print("  {}: ({} bytes{})\n", tag, value.size(),
                 tag == "source" ? ", shown below" : "");
    }
  }
  fmt::print("payloads:\n");
  for (const cache::Payload& payload : entry->payloads) {
    fmt::print("  {}: {} bytes\n", payload.kind, payload.bytes.size());
  }
  if (const std::string* log = entry->payload(cache::payload_kind::log); log && !log->empty()) {
    fmt::print("compiler log:\n{}\n", *log);
  }
  // The generated source is the key's "source" field (entries of earlier versions also kept it
  // as a payload).
  const std::string* source = entry->payload(cache::payload_kind::source);
  for (const auto& [tag, value] : entry->key_fields) {
    if (!source && tag == "source") source = &value;
  }
  if (source) {
    fmt::print("generated source:\n{}{}", *source,
               !source->empty() && source->back() == '\n' ? "" : "\n");
  }
  return kExitSuccess;
}

// ---- stats ----

struct FolderSummary {
  std::filesystem::path path;
  bool read_only = false;
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};

/// `path` spelled so that two spellings of one folder compare equal ("a/b/" and "a/./b").
std::filesystem::path comparable(const std::filesystem::path& path) {
  std::filesystem::path normal = path.lexically_normal();
  return normal.has_filename() ? normal : normal.parent_path();
}

int run_stats(const CacheArguments& args) {
  const cache::CacheSettings settings = settings_for(args);
  const std::vector<cache::EntryInfo> entries = open_cache(args)->list();
  // The writable folder first, then the read-only ones, as they are searched.
  std::vector<FolderSummary> folders{FolderSummary{settings.dir, false}};
  for (const auto& dir : settings.read_only_dirs) folders.push_back(FolderSummary{dir, true});
  std::uint64_t total_entries = 0;
  for (const cache::EntryInfo& entry : entries) {
    // Entries live at <folder>/<2 hex digits>/<30 hex digits>.jvk.
    const std::filesystem::path folder = comparable(entry.path.parent_path().parent_path());
    for (FolderSummary& summary : folders) {
      if (summary.read_only != entry.read_only || comparable(summary.path) != folder) continue;
      summary.entries++;
      summary.bytes += entry.size;
      break;
    }
    total_entries++;
  }
  const FolderSummary& writable = folders.front();
  if (args.json) {
    toml::array folder_list;
    for (const FolderSummary& summary : folders) {
      folder_list.push_back(toml::table{{"path", summary.path.string()},
                                        {"read_only", summary.read_only},
                                        {"entries", json_int(summary.entries)},
                                        {"size", json_int(summary.bytes)}});
    }
    print_json(toml::table{{"folders", std::move(folder_list)},
                           {"entries", json_int(total_entries)},
                           {"total_size", json_int(writable.bytes)},
                           {"max_size", json_int(settings.max_size)},
                           {"disabled", settings.disabled}});
    return kExitSuccess;
  }
  for (const FolderSummary& summary : folders) {
    fmt::print("{:<10} {}: {} entries, {}\n", summary.read_only ? "read-only" : "writable",
               summary.path.string(), summary.entries, human_size(summary.bytes));
  }
  fmt::print("entries: {}\n", total_entries);
  fmt::print("total size: {} of at most {} (writable folder)\n", human_size(writable.bytes),
             human_size(settings.max_size));
  if (settings.disabled) {
    fmt::print("disabled: JITVEC_CACHE_DISABLE is set, so programs do not use these folders\n");
  }
  return kExitSuccess;
}

// ---- verify ----

int run_verify(const CacheArguments& args) {
  const cache::VerifyReport report = open_cache(args)->verify();
  if (args.json) {
    toml::array problems;
    for (const cache::EntryProblem& problem : report.problems) {
      problems.push_back(
          toml::table{{"path", problem.path.string()}, {"reason", problem.reason}});
    }
    print_json(toml::table{{"checked", json_int(report.checked)}, {"problems", std::move(problems)}});
  } else {
    for (const cache::EntryProblem& problem : report.problems) {
      fmt::print("{}: {}\n", problem.path.string(), problem.reason);
    }
    fmt::print("checked {} entries: {} problem{}\n", report.checked, report.problems.size(),
               report.problems.size() == 1 ? "" : "s");
  }
  return report.problems.empty() ? kExitSuccess : kExitFailure;
}

// ---- prune ----

int run_prune(const CacheArguments& args) {
  const std::unique_ptr<cache::DiskCache> disk = open_cache(args);
  std::uint64_t max_size = disk->settings().max_size;
  if (!args.max_size.empty()) {
    try {
      max_size = cache::parse_cache_size(args.max_size, "--max-size");
    } catch (const cache::CacheError& e) {
      throw UsageError(e.what());
    }
  }
  const cache::PruneReport report = disk->prune(max_size);
  fmt::print("removed {} entries ({}) and {} stale temporary files from {}; {} left (at most {})\n",
             report.removed_entries, human_size(report.removed_bytes),
             report.removed_temporary_files, disk->settings().dir.string(),
             human_size(report.remaining_bytes), human_size(max_size));
  return kExitSuccess;
}

// ---- clear ----

int run_clear(const CacheArguments& args) {
  const std::unique_ptr<cache::DiskCache> disk = open_cache(args);
  const cache::ClearReport report = disk->clear();
  for (const cache::EntryProblem& problem : report.problems) {
    fmt::print(stderr, "jitvec: {}: {}\n", problem.path.string(), problem.reason);
  }
  fmt::print("removed {} entries from {}{}\n", report.removed_entries,
             disk->settings().dir.string(),
             report.removed_other == 0
                 ? std::string()
                 : fmt::format(", and {} folders that had taken entries' names",
                               report.removed_other));
  return report.problems.empty() ? kExitSuccess : kExitFailure;
}

// ---- registration ----

CLI::App* add_action(CLI::App& parent, const char* name, const char* description,
                     const std::shared_ptr<CacheArguments>& args, CommandAction& chosen,
                     int (*run)(const CacheArguments&)) {
  CLI::App* command = parent.add_subcommand(name, description);
  CLI::Option* dir = command->add_option("--cache-dir", args->cache_dir,
                                         "the writable cache folder (default: JITVEC_CACHE_DIR, "
                                         "else $XDG_CACHE_HOME/jitvec, else ~/.cache/jitvec)");
  command->callback([&chosen, args, run, dir] {
    args->cache_dir_given = dir->count() > 0;
    chosen = [args, run] { return run(*args); };
  });
  return command;
}

}  // namespace

void add_cache_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CacheArguments>();
  CLI::App* cache = app.add_subcommand(
      "cache", "Inspects and tidies the kernel cache: the writable folder and the read-only "
               "folders of JITVEC_CACHE_PATH.");
  cache->require_subcommand(1);

  add_action(*cache, "list", "Lists every entry: key, architecture, size, last use, ufunc, loop.",
             args, chosen, run_list)
      ->add_flag("--json", args->json, "write JSON");
  add_action(*cache, "show",
             "Shows one entry: its key fields, payload sizes and generated source.", args,
             chosen, run_show)
      ->add_option("key", args->key, "the entry's key, or enough of its first digits")
      ->required();
  add_action(*cache, "stats", "Shows the folders, their entry counts and sizes, the size limit.",
             args, chosen, run_stats)
      ->add_flag("--json", args->json, "write JSON");
  add_action(*cache, "verify",
             "Reads every entry and names each damaged or untrusted one (exit status 1 if any).",
             args, chosen, run_verify)
      ->add_flag("--json", args->json, "write JSON");
  add_action(*cache, "prune",
             "Removes the least recently used entries of the writable folder until it fits the "
             "size limit, and stale temporary files.",
             args, chosen, run_prune)
      ->add_option("--max-size", args->max_size,
                   "the size to prune to: bytes, or with a K, M or G suffix (default: "
                   "JITVEC_CACHE_MAX_SIZE, else 1G)");
  add_action(*cache, "clear", "Deletes every entry of the writable folder.", args, chosen,
             run_clear);
}

}  // namespace jitvec::cli
