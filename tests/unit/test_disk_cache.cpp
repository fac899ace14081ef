// tests/unit/test_disk_cache.cpp: the disk cache on real temporary folders: storing and
// loading (across instances, threads and processes), damage and its healing, folders that
// cannot be written or trusted, eviction, stale temporary files, and the inspection calls.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/sinks/base_sink.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cache/disk_cache.hpp"
#include "catch.hpp"
#include "core/log.hpp"
#include "unit/log_capture.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using jitvec_test::LogCapture;
using jitvec::cache::CacheEntry;
using jitvec::cache::CacheError;
using jitvec::cache::CacheKey;
using jitvec::cache::CacheSettings;
using jitvec::cache::DamagedEntry;
using jitvec::cache::DiskCache;

constexpr std::int64_t kFixedCreated = 1733000000;

/// A folder of its own for one test, removed with everything in it at the end.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "jitvec-cache-test-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

CacheSettings settings_for(const fs::path& dir, std::vector<fs::path> read_only_dirs = {}) {
  CacheSettings settings;
  settings.dir = dir;
  settings.read_only_dirs = std::move(read_only_dirs);
  return settings;
}

CacheKey make_key(const std::string& name, const std::string& arch = "x86_64") {
  CacheKey key;
  key.add("target", "cpu");
  key.add("arch", arch);
  key.add("ufunc", name);
  key.add("loop", "float64(float64)");
  key.add("source", "double " + name + "(double x) { return x + 1.0; }");
  return key;
}

CacheEntry make_entry(const std::string& name, std::size_t payload_size = 1000) {
  CacheEntry entry;
  std::string bytes(payload_size, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 31 + name.size()) & 0xff);
  entry.add_payload("blob", std::move(bytes));  // a kind the cache does not look into
  entry.add_payload("log", "compiled " + name);
  entry.created = kFixedCreated;
  return entry;
}

/// What a load of `key` must return after store(key, entry).
CacheEntry as_stored(const CacheKey& key, CacheEntry entry) {
  entry.key_fields = key.fields();
  return entry;
}

fs::path entry_file(const fs::path& dir, const CacheKey& key) {
  return DiskCache::entry_path(dir, key.hex());
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

unsigned mode_of(const fs::path& path) {
  struct stat info {};
  REQUIRE(::lstat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

void set_age(const fs::path& path, std::chrono::seconds age) {
  const auto when = std::chrono::system_clock::now() - age;
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
  timespec times[2];
  times[0].tv_sec = times[1].tv_sec = since_epoch / 1000000000;
  times[0].tv_nsec = times[1].tv_nsec = since_epoch % 1000000000;
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

std::chrono::system_clock::time_point modified(const fs::path& path) {
  struct stat info {};
  REQUIRE(::lstat(path.c_str(), &info) == 0);
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(info.st_mtim.tv_sec) +
          std::chrono::nanoseconds(info.st_mtim.tv_nsec)));
}

/// Every file (not folder) under `dir`, and how many of them are entries and temporary files.
struct FileCensus {
  std::vector<fs::path> files;
  int entries = 0;
  int temporaries = 0;
};

FileCensus census(const fs::path& dir) {
  FileCensus result;
  for (const auto& item : fs::recursive_directory_iterator(dir)) {
    if (item.is_directory()) continue;
    result.files.push_back(item.path());
    const std::string name = item.path().filename().string();
    if (item.path().extension() == ".jvk") ++result.entries;
    if (name.rfind(".tmp.", 0) == 0) ++result.temporaries;
  }
  return result;
}

pid_t spawn(const std::string& program, const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ);
  INFO("starting " << program << ": " << std::strerror(error));
  REQUIRE(error == 0);
  return pid;
}

}  // namespace

TEST_CASE("a stored entry loads back, in this cache and in a new one", "[cache]") {
  TemporaryFolder tmp;
  const auto settings = settings_for(tmp.path() / "cache");
  DiskCache cache(settings);
  CHECK(cache.writable());
  const CacheKey key = make_key("twice");
  CHECK_FALSE(cache.load(key));

  CacheEntry entry = make_entry("twice");
  entry.created = 0;
  entry.key_fields = {{"ignored", "the key's own fields are stored"}};
  const auto before = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  cache.store(key, entry);
  const auto after = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();

  const auto loaded = cache.load(key);
  REQUIRE(loaded);
  CHECK(loaded->key_fields == key.fields());
  CHECK(loaded->payloads == entry.payloads);
  CHECK(loaded->created >= before);
  CHECK(loaded->created <= after);

  const auto stats = cache.stats();
  CHECK(stats.hits == 1);
  CHECK(stats.misses == 1);
  CHECK(stats.stores == 1);
  CHECK(stats.damaged == 0);
  CHECK(stats.evictions == 0);

  DiskCache fresh(settings);
  const auto again = fresh.load(key);
  REQUIRE(again);
  CHECK(*again == *loaded);

  // A created time the caller chose is kept.
  const CacheKey dated = make_key("dated");
  cache.store(dated, make_entry("dated"));
  CHECK(cache.load(dated)->created == kFixedCreated);
}

TEST_CASE("entries fan out into private folders and are written whole", "[cache]") {
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "parent" / "cache";
  DiskCache cache(settings_for(dir));
  const CacheKey key = make_key("layout");
  const std::string hex = key.hex();
  cache.store(key, make_entry("layout"));

  const fs::path file = dir / hex.substr(0, 2) / (hex.substr(2) + ".jvk");
  REQUIRE(fs::is_regular_file(file));
  CHECK(jitvec::cache::parse(read_bytes(file)) == as_stored(key, make_entry("layout")));
  CHECK(DiskCache::entry_path(dir, hex) == file);

  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(mode_of(tmp.path() / "parent") == 0700);
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(file.parent_path()) == 0700);
  CHECK(mode_of(file) == (0644 & ~mask));

  const auto files = census(dir);
  CHECK(files.files.size() == 1);
  CHECK(files.temporaries == 0);
}

TEST_CASE("an entry stored under other key fields with the same name is a miss", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey stored_key = make_key("collide", "sm_80");
  const CacheKey wanted_key = make_key("collide", "sm_90");
  cache.store(stored_key, make_entry("collide"));
  fs::create_directories(entry_file(tmp.path(), wanted_key).parent_path());
  fs::copy_file(entry_file(tmp.path(), stored_key), entry_file(tmp.path(), wanted_key));

  const LogCapture log(/*debug=*/true);
  CHECK_FALSE(cache.load(wanted_key));
  CHECK(cache.stats().damaged == 0);
  CHECK(log.count(spdlog::level::debug, {entry_file(tmp.path(), wanted_key).string(),
                                         "arch differs: sm_80 vs sm_90"}) == 1);
}

TEST_CASE("damaged entries are warned about once, missed, and replaced by the next store",
          "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const std::string good =
      jitvec::cache::serialize(as_stored(make_key("probe"), make_entry("probe")));
  const fs::path elsewhere = tmp.path() / "valid-entry-elsewhere";
  write_bytes(elsewhere, good);

  struct Damage {
    std::string name;
    std::string reason;  // what the warning must say
    std::function<void(const fs::path&, const std::string&)> apply;
  };
  const auto truncate_to = [](std::size_t n) {
    return [n](const fs::path& file, const std::string& bytes) {
      write_bytes(file, bytes.substr(0, n));
    };
  };
  const auto flip_bit_at = [](double where) {
    return [where](const fs::path& file, std::string bytes) {
      const auto offset = static_cast<std::size_t>(where * static_cast<double>(bytes.size() - 1));
      bytes[offset] = static_cast<char>(bytes[offset] ^ 0x10);
      write_bytes(file, bytes);
    };
  };
  const std::vector<Damage> damages{
      {"empty", "truncated", truncate_to(0)},
      {"cut-7", "truncated", truncate_to(7)},
      {"cut-30", "truncated", truncate_to(30)},
      {"cut-half", "truncated",
       [](const fs::path& f, const std::string& b) { write_bytes(f, b.substr(0, b.size() / 2)); }},
      {"cut-one", "truncated",
       [](const fs::path& f, const std::string& b) { write_bytes(f, b.substr(0, b.size() - 1)); }},
      {"flip-first", "bad magic", flip_bit_at(0.0)},
      {"flip-middle", "checksum mismatch", flip_bit_at(0.5)},
      {"flip-last", "checksum mismatch", flip_bit_at(1.0)},
      {"bad-magic", "bad magic",
       [](const fs::path& f, std::string b) { write_bytes(f, b.replace(0, 8, "NOTCACHE")); }},
      {"version", "wrong format version 7",
       [](const fs::path& f, std::string b) {
         b[8] = 7;
         b[9] = b[10] = b[11] = 0;
         write_bytes(f, b);
       }},
      {"symlink", "unreadable (it is a symbolic link)",
       [&](const fs::path& f, const std::string&) {
         fs::remove(f);
         fs::create_symlink(elsewhere, f);
       }},
      {"garbage", "bad magic",
       [](const fs::path& f, const std::string&) { write_bytes(f, "#!/bin/sh\nrm -rf /\n"); }},
  };

  for (const auto& damage : damages) {
    INFO("damage: " << damage.name);
    const CacheKey key = make_key("damaged-" + damage.name);
    const CacheEntry entry = make_entry(damage.name);
    const fs::path file = entry_file(tmp.path(), key);
    cache.store(key, entry);
    damage.apply(file, read_bytes(file));

    const LogCapture log;
    const auto damaged_before = cache.stats().damaged;
    CHECK_FALSE(cache.load(key));
    CHECK_FALSE(cache.load(key));
    CHECK(cache.stats().damaged == damaged_before + 2);
    CHECK(log.warnings({file.string(), damage.reason}) == 1);

    cache.store(key, entry);
    CHECK_FALSE(fs::is_symlink(file));
    const auto healed = cache.load(key);
    REQUIRE(healed);
    CHECK(*healed == as_stored(key, entry));
  }
  CHECK(census(tmp.path()).temporaries == 0);
}

TEST_CASE("an entry file the user cannot read is a miss", "[cache]") {
  if (::geteuid() == 0) {
    JITVEC_SKIP(
        "running as root, which chmod 000 does not stop from reading; the symbolic-link case of "
        "'damaged entries are warned about once...' covers unreadable entries");
  }
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("unreadable");
  cache.store(key, make_entry("unreadable"));
  const fs::path file = entry_file(tmp.path(), key);
  REQUIRE(::chmod(file.c_str(), 0) == 0);
  const LogCapture log;
  CHECK_FALSE(cache.load(key));
  CHECK(cache.stats().damaged == 1);
  CHECK(log.warnings({file.string(), "unreadable (Permission denied)"}) == 1);
  cache.store(key, make_entry("unreadable"));
  CHECK(cache.load(key));
}

TEST_CASE("read-only folders are searched after the writable one and never written", "[cache]") {
  TemporaryFolder tmp;
  const fs::path read_only = tmp.path() / "shipped";
  const fs::path writable = tmp.path() / "mine";
  const CacheKey both = make_key("in-both");
  const CacheKey shipped_only = make_key("shipped-only");
  const CacheKey damaged_shipped = make_key("damaged-shipped");
  {
    DiskCache shipper(settings_for(read_only));
    shipper.store(both, make_entry("shipped version"));
    shipper.store(shipped_only, make_entry("shipped-only"));
    shipper.store(damaged_shipped, make_entry("damaged-shipped"));
  }
  {
    DiskCache mine(settings_for(writable));
    mine.store(both, make_entry("my version"));
  }
  const fs::path damaged_file = entry_file(read_only, damaged_shipped);
  const std::string damaged_bytes = read_bytes(damaged_file).substr(0, 100);
  write_bytes(damaged_file, damaged_bytes);
  set_age(entry_file(read_only, shipped_only), std::chrono::hours(5));
  const auto shipped_time = modified(entry_file(read_only, shipped_only));

  DiskCache cache(settings_for(writable, {tmp.path() / "does-not-exist", read_only}));
  CHECK(*cache.load(both)->payload("log") == "compiled my version");
  CHECK(*cache.load(shipped_only)->payload("log") == "compiled shipped-only");
  CHECK(modified(entry_file(read_only, shipped_only)) == shipped_time);

  const LogCapture log;
  CHECK_FALSE(cache.load(damaged_shipped));
  CHECK(cache.stats().damaged == 1);
  CHECK(log.warnings({damaged_file.string(), "truncated"}) == 1);
  CHECK(log.warnings({"the next store replaces it"}) == 0);

  const auto shipped_files = census(read_only).files;
  cache.store(damaged_shipped, make_entry("damaged-shipped"));
  cache.store(make_key("new"), make_entry("new"));
  CHECK(census(read_only).files == shipped_files);
  CHECK(read_bytes(damaged_file) == damaged_bytes);
  CHECK(fs::exists(entry_file(writable, make_key("new"))));
  CHECK(cache.load(damaged_shipped));
}

TEST_CASE("a cache folder that cannot be created leaves the cache in memory only, with one warning",
          "[cache]") {
  TemporaryFolder tmp;
  const fs::path blocker = tmp.path() / "a-file";
  write_bytes(blocker, "not a folder");
  const fs::path dir = blocker / "cache";

  const LogCapture log;
  DiskCache cache(settings_for(dir));
  CHECK_FALSE(cache.writable());
  const CacheKey key = make_key("nowhere");
  for (int i = 0; i < 3; ++i) CHECK_NOTHROW(cache.store(key, make_entry("nowhere")));
  CHECK_FALSE(cache.load(key));
  CHECK(log.warnings({dir.string()}) == 1);
  CHECK(log.warnings({dir.string(), "cannot create", "Not a directory", "memory only"}) == 1);
  CHECK(cache.stats().stores == 0);
  CHECK(read_bytes(blocker) == "not a folder");
}

TEST_CASE("a failed write turns storing off with one warning and leaves no temporary file",
          "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("too-big");
  const LogCapture log;

  // A file size limit makes write() fail as a full disk would (EFBIG instead of ENOSPC).
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto saved_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit limited = saved;
  limited.rlim_cur = 16 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
  bool threw = false;
  try {
    cache.store(key, make_entry("too-big", 256 * 1024));
    cache.store(key, make_entry("too-big", 256 * 1024));
  } catch (...) {
    threw = true;
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, saved_handler);

  CHECK_FALSE(threw);
  CHECK_FALSE(cache.writable());
  CHECK(cache.stats().stores == 0);
  CHECK(log.warnings({tmp.path().string(), "cannot write", "File too large", "memory only"}) == 1);
  CHECK(census(tmp.path()).files.empty());
  CHECK_FALSE(cache.load(key));
}

TEST_CASE("a cache folder others can write to is refused", "[cache]") {
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "open";
  const CacheKey key = make_key("planted");
  {
    DiskCache trusted(settings_for(dir));
    trusted.store(key, make_entry("planted"));
  }
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  const auto before = census(dir).files;

  const LogCapture log;
  DiskCache cache(settings_for(dir));
  CHECK_FALSE(cache.writable());
  CHECK_FALSE(cache.load(key));
  cache.store(make_key("other"), make_entry("other"));
  CHECK(census(dir).files == before);
  CHECK(log.warnings({dir.string(), "refuses", "not sticky (mode 0777)"}) == 1);
  CHECK(cache.stats().damaged == 0);

  // The same folder as a read-only one is refused too.
  DiskCache reader(settings_for(tmp.path() / "mine", {dir}));
  CHECK_FALSE(reader.load(key));
}

TEST_CASE("a fan-out subfolder others can write to is refused", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("open-subfolder");
  cache.store(key, make_entry("open-subfolder"));
  const fs::path subfolder = entry_file(tmp.path(), key).parent_path();
  REQUIRE(::chmod(subfolder.c_str(), 0777) == 0);

  const LogCapture log;
  CHECK_FALSE(cache.load(key));
  CHECK(log.warnings({subfolder.string(), "not sticky"}) == 1);
  // The next store goes to the user's own subfolder instead, which loads read first.
  cache.store(key, make_entry("open-subfolder"));
  CHECK(cache.writable());
  CHECK(cache.stats().stores == 2);
  CHECK(fs::is_regular_file(DiskCache::own_entry_path(tmp.path(), key.hex())));
  CHECK(cache.load(key));
  CHECK(log.warnings({subfolder.string(), "not sticky"}) == 1);
}

TEST_CASE("an entry file others can write to, or another user owns, is refused", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("writable-entry");
  cache.store(key, make_entry("writable-entry"));
  const fs::path file = entry_file(tmp.path(), key);
  REQUIRE(::chmod(file.c_str(), 0666) == 0);
  {
    const LogCapture log;
    CHECK_FALSE(cache.load(key));
    CHECK(log.warnings({file.string(), "refuses", "group or others can write to it (mode 0666)"}) ==
          1);
  }
  CHECK(cache.stats().damaged == 0);
  cache.store(key, make_entry("writable-entry"));
  CHECK(cache.load(key));

  const uid_t stranger = 54321;
  if (::chown(file.c_str(), stranger, static_cast<gid_t>(-1)) != 0) {
    WARN("cannot give a file to another user (not root): the other-owner case is not tested");
    return;
  }
  const LogCapture log;
  CHECK_FALSE(cache.load(key));
  CHECK(log.warnings({file.string(), "owned by user 54321"}) == 1);
}

TEST_CASE("a sticky folder anyone can write to is accepted for the user's own entries", "[cache]") {
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "sticky";
  fs::create_directory(dir);
  REQUIRE(::chmod(dir.c_str(), 01777) == 0);
  const LogCapture log;
  DiskCache cache(settings_for(dir));
  CHECK(cache.writable());
  const CacheKey key = make_key("sticky");
  cache.store(key, make_entry("sticky"));
  CHECK(cache.load(key));
  CHECK(log.warnings({}) == 0);
}

TEST_CASE("eviction keeps the cache under max_size, least recently used first", "[cache]") {
  TemporaryFolder tmp;
  const auto entry_size =
      jitvec::cache::serialize(as_stored(make_key("e1"), make_entry("e1"))).size();
  auto settings = settings_for(tmp.path());
  settings.max_size = 3 * entry_size;
  DiskCache cache(settings);
  const CacheKey a = make_key("e1"), b = make_key("e2"), c = make_key("e3"), d = make_key("e4");

  cache.store(a, make_entry("e1"));
  cache.store(b, make_entry("e2"));
  cache.store(c, make_entry("e3"));
  CHECK(cache.total_size() == 3 * entry_size);
  CHECK(cache.stats().evictions == 0);
  set_age(entry_file(tmp.path(), a), std::chrono::seconds(300));
  set_age(entry_file(tmp.path(), b), std::chrono::seconds(200));
  set_age(entry_file(tmp.path(), c), std::chrono::seconds(100));

  REQUIRE(cache.load(a));  // a hit makes `a` the most recently used
  CHECK(modified(entry_file(tmp.path(), a)) > modified(entry_file(tmp.path(), c)));
  cache.store(d, make_entry("e4"));
  CHECK(cache.stats().evictions == 1);
  CHECK(cache.total_size() == 3 * entry_size);
  CHECK_FALSE(fs::exists(entry_file(tmp.path(), b)));
  CHECK(fs::exists(entry_file(tmp.path(), a)));
  CHECK(fs::exists(entry_file(tmp.path(), c)));
  CHECK(fs::exists(entry_file(tmp.path(), d)));

  set_age(entry_file(tmp.path(), c), std::chrono::seconds(100));
  set_age(entry_file(tmp.path(), a), std::chrono::seconds(50));
  set_age(entry_file(tmp.path(), d), std::chrono::seconds(10));
  const auto report = cache.prune(entry_size + entry_size / 2);
  CHECK(report.removed_entries == 2);
  CHECK(report.removed_bytes == 2 * entry_size);
  CHECK(report.remaining_bytes == entry_size);
  CHECK(fs::exists(entry_file(tmp.path(), d)));
  CHECK(census(tmp.path()).entries == 1);
  CHECK(cache.stats().evictions == 3);
}

TEST_CASE("temporary files left by killed writers are deleted after an hour", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const fs::path subfolder = tmp.path() / "ab";
  fs::create_directory(subfolder);
  const fs::path stale = subfolder / ".tmp.1234.5678.0123456789abcdef";
  const fs::path fresh = subfolder / ".tmp.4321.8765.fedcba9876543210";
  const fs::path unrelated = subfolder / "notes.txt";
  for (const auto& file : {stale, fresh, unrelated}) write_bytes(file, "partial");
  set_age(stale, std::chrono::minutes(61));
  set_age(unrelated, std::chrono::hours(24));

  cache.store(make_key("trigger"), make_entry("trigger"));
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fresh));
  CHECK(fs::exists(unrelated));

  set_age(fresh, std::chrono::hours(2));
  CHECK(cache.prune(settings_for(tmp.path()).max_size).removed_temporary_files == 1);
  CHECK_FALSE(fs::exists(fresh));
  CHECK(fs::exists(unrelated));
}

TEST_CASE("list and verify describe every entry, the damaged and misplaced ones too", "[cache]") {
  TemporaryFolder tmp;
  const fs::path read_only = tmp.path() / "shipped";
  const fs::path writable = tmp.path() / "mine";
  DiskCache(settings_for(read_only)).store(make_key("shipped"), make_entry("shipped"));
  DiskCache cache(settings_for(writable, {read_only}));
  const CacheKey good = make_key("good"), damaged = make_key("damaged");
  cache.store(good, make_entry("good"));
  cache.store(damaged, make_entry("damaged"));
  std::string bytes = read_bytes(entry_file(writable, damaged));
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
  write_bytes(entry_file(writable, damaged), bytes);
  const std::string misplaced_hex(32, 'f');
  const fs::path misplaced = DiskCache::entry_path(writable, misplaced_hex);
  fs::create_directories(misplaced.parent_path());
  fs::copy_file(entry_file(writable, good), misplaced);

  const auto infos = cache.list();
  REQUIRE(infos.size() == 4);
  std::map<std::string, jitvec::cache::EntryInfo> by_key;
  for (const auto& info : infos) by_key[info.key_hex] = info;
  REQUIRE(by_key.count(good.hex()) == 1);
  const auto& good_info = by_key[good.hex()];
  CHECK(good_info.path == entry_file(writable, good));
  CHECK(good_info.size == fs::file_size(good_info.path));
  CHECK(good_info.field("ufunc") == "good");
  CHECK(good_info.field("loop") == "float64(float64)");
  CHECK(good_info.field("target") == "cpu");
  CHECK(good_info.field("no such field").empty());
  CHECK(good_info.problem.empty());
  CHECK_FALSE(good_info.read_only);
  CHECK(by_key[damaged.hex()].problem == "checksum mismatch");
  CHECK(by_key[damaged.hex()].key_fields.empty());
  CHECK(by_key[make_key("shipped").hex()].read_only);
  CHECK(by_key[make_key("shipped").hex()].field("ufunc") == "shipped");
  CHECK(infos.back().read_only);  // the writable folder's entries come first

  const auto report = cache.verify();
  CHECK(report.checked == 4);
  REQUIRE(report.problems.size() == 2);
  std::map<fs::path, std::string> problems;
  for (const auto& problem : report.problems) problems[problem.path] = problem.reason;
  CHECK(problems[entry_file(writable, damaged)] == "checksum mismatch");
  CHECK(problems[misplaced] ==
        "misplaced: its key fields hash to " + good.hex() + ", not to its file name");
}

TEST_CASE("read_by_key_prefix finds one entry by a prefix of its key", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  // Store keys until two share their first hex digit (at most 17 are needed).
  std::map<char, CacheKey> by_first_digit;
  std::vector<CacheKey> shared_pair;
  for (int i = 0; shared_pair.empty(); ++i) {
    const CacheKey key = make_key("prefix" + std::to_string(i));
    cache.store(key, make_entry("prefix" + std::to_string(i)));
    const auto [existing, inserted] = by_first_digit.emplace(key.hex()[0], key);
    if (!inserted) shared_pair = {existing->second, key};
  }
  const CacheKey& first = shared_pair[0];
  const std::string hex = first.hex();

  CHECK(cache.read_by_key_prefix(hex)->key_fields == first.fields());
  std::string upper = hex.substr(0, 12);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](char ch) { return static_cast<char>(std::toupper(ch)); });
  CHECK(cache.read_by_key_prefix(upper)->key_fields == first.fields());
  CHECK_THROWS_AS(cache.read_by_key_prefix(hex.substr(0, 1)), CacheError);
  try {
    cache.read_by_key_prefix(hex.substr(0, 1));
  } catch (const CacheError& error) {
    CHECK(std::string(error.what()).find("is ambiguous: it matches") != std::string::npos);
  }
  CHECK_THROWS_WITH(cache.read_by_key_prefix("xyz"),
                    "'xyz' is not a cache key or key prefix: expected 1 to 32 hexadecimal digits");
  CHECK_THROWS_AS(cache.read_by_key_prefix(""), CacheError);
  CHECK_THROWS_AS(cache.read_by_key_prefix(hex + "0"), CacheError);

  std::string absent = hex;
  absent[31] = absent[31] == '0' ? '1' : '0';
  CHECK_FALSE(cache.read_by_key_prefix(absent));

  write_bytes(entry_file(tmp.path(), first), "JVCACHE\n");
  CHECK_THROWS_AS(cache.read_by_key_prefix(hex), DamagedEntry);
}

TEST_CASE("clear deletes entries and temporary files and nothing else", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  for (const char* name : {"c1", "c2", "c3"}) cache.store(make_key(name), make_entry(name));
  const fs::path subfolder = entry_file(tmp.path(), make_key("c1")).parent_path();
  write_bytes(subfolder / ".tmp.1.2.3", "partial");
  write_bytes(tmp.path() / "notes.txt", "mine");
  fs::create_directory(tmp.path() / "zz");
  write_bytes(tmp.path() / "zz" / "0123456789abcdef0123456789abcd.jvk", "not in a fan-out folder");

  CHECK(cache.clear().removed_entries == 3);
  CHECK(cache.total_size() == 0);
  CHECK(cache.list().empty());
  const auto left = census(tmp.path());
  CHECK(left.files.size() == 2);
  CHECK(fs::exists(tmp.path() / "notes.txt"));
  CHECK_FALSE(fs::exists(subfolder));
  CHECK_FALSE(cache.load(make_key("c1")));
  cache.store(make_key("c1"), make_entry("c1"));
  CHECK(cache.load(make_key("c1")));
}

TEST_CASE("a disabled cache neither reads nor writes", "[cache]") {
  TemporaryFolder tmp;
  const CacheKey key = make_key("disabled");
  DiskCache(settings_for(tmp.path() / "cache")).store(key, make_entry("disabled"));
  auto settings = settings_for(tmp.path() / "cache");
  settings.disabled = true;
  DiskCache cache(settings);
  CHECK_FALSE(cache.writable());
  CHECK_FALSE(cache.load(key));
  cache.store(make_key("other"), make_entry("other"));
  CHECK(census(tmp.path()).entries == 1);
  CHECK(cache.list().empty());

  settings.dir = tmp.path() / "never-made";
  DiskCache unmade(settings);
  CHECK_FALSE(fs::exists(settings.dir));
}

TEST_CASE("threads storing and loading at once never see a partial entry", "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  constexpr int kThreads = 4, kIterations = 40, kKeys = 3;
  std::vector<CacheKey> keys;
  std::vector<CacheEntry> entries;
  for (int k = 0; k < kKeys; ++k) {
    keys.push_back(make_key("thread-key-" + std::to_string(k)));
    entries.push_back(
        as_stored(keys.back(), make_entry("thread-key-" + std::to_string(k), 64 * 1024)));
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        const int k = (i + t) % kKeys;
        const auto loaded = cache.load(keys[k]);
        if (loaded && *loaded != entries[k]) ++wrong;
        if (!loaded || i % 5 == t) cache.store(keys[k], entries[k]);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == 0);
  CHECK(cache.stats().damaged == 0);
  CHECK(cache.stats().hits + cache.stats().misses == kThreads * kIterations);
  const auto left = census(tmp.path());
  CHECK(left.entries == kKeys);
  CHECK(left.temporaries == 0);
}

TEST_CASE("eight processes storing one cold key at once leave exactly one whole entry", "[cache]") {
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "cache";
  const fs::path go = tmp.path() / "go";
  const std::string tool = std::string(JITVEC_TOOLS_DIR) + "/cache_stress";
  constexpr int kProcesses = 8;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcesses; ++i)
    pids.push_back(spawn(tool, {dir.string(), "24", std::to_string(i), go.string()}));
  write_bytes(go, "");
  for (int i = 0; i < kProcesses; ++i) {
    int status = 0;
    REQUIRE(::waitpid(pids[i], &status, 0) == pids[i]);
    INFO("process " << i);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }

  const auto left = census(dir);
  CHECK(left.entries == 1);
  CHECK(left.temporaries == 0);
  CHECK(left.files.size() == 1);
  DiskCache cache(settings_for(dir));
  CHECK(cache.verify().problems.empty());
  const auto infos = cache.list();
  REQUIRE(infos.size() == 1);
  CHECK(infos[0].field("ufunc") == "stress");
  const auto entry = cache.read_by_key_prefix(infos[0].key_hex);
  REQUIRE(entry);
  REQUIRE(entry->payload("blob") != nullptr);
  CHECK(entry->payload("blob")->size() == 256 * 1024);
}

// ---- issue 15: the disk cache keeps its promise ----

namespace {

/// Makes `file` a sparse file of `size` bytes that starts with `head`.
void write_sparse(const fs::path& file, const std::string& head, std::uint64_t size) {
  write_bytes(file, head);
  REQUIRE(::truncate(file.c_str(), static_cast<off_t>(size)) == 0);
}

bool running_as_root() { return ::geteuid() == 0; }

constexpr uid_t kStranger = 54321;

}  // namespace

TEST_CASE("a huge entry file is a miss, reported by list and verify, never read whole",
          "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey good_key = make_key("good");
  cache.store(good_key, make_entry("good"));
  const CacheKey huge_key = make_key("huge");
  const fs::path huge = entry_file(tmp.path(), huge_key);
  fs::create_directories(huge.parent_path());
  const std::string header = jitvec::cache::serialize(as_stored(huge_key, make_entry("huge")));
  const std::uint64_t size = GENERATE(std::uint64_t{1} << 40, std::uint64_t{4} << 30);
  INFO("a sparse file of " << size << " bytes");
  write_sparse(huge, header, size);

  const LogCapture log;
  std::optional<CacheEntry> loaded;
  REQUIRE_NOTHROW(loaded = cache.load(huge_key));  // was std::bad_alloc
  CHECK_FALSE(loaded);
  CHECK(log.warnings({huge.string(), "too large (" + std::to_string(size) + " bytes"}) == 1);
  CHECK(cache.stats().damaged == 1);
  std::vector<jitvec::cache::EntryInfo> entries;
  REQUIRE_NOTHROW(entries = cache.list());
  REQUIRE(entries.size() == 2);
  const auto& listed = entries[0].path == huge ? entries[0] : entries[1];
  CHECK(listed.problem.find("too large") != std::string::npos);
  const auto report = cache.verify();
  CHECK(report.checked == 2);
  REQUIRE(report.problems.size() == 1);
  CHECK(report.problems[0].path == huge);

  // Pruning to a limit the good entries fit removes the huge file first, and only it.
  const auto pruned = cache.prune(1 << 20);
  CHECK(pruned.removed_entries == 1);
  CHECK_FALSE(fs::exists(huge));
  CHECK(cache.load(good_key));
}

TEST_CASE("an entry whose header gives another size than its file is not read further",
          "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("liar");
  cache.store(key, make_entry("liar"));
  const fs::path file = entry_file(tmp.path(), key);
  std::string bytes = read_bytes(file);
  const std::uint64_t claimed = std::uint64_t{1} << 40;  // the header's size field: bytes 12-19
  for (int i = 0; i < 8; ++i) bytes[12 + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  write_bytes(file, bytes);
  const LogCapture log;
  CHECK_FALSE(cache.load(key));
  CHECK(log.warnings({file.string(), "truncated (" + std::to_string(bytes.size()) + " of " +
                                         std::to_string(claimed) + " bytes)"}) == 1);
}

TEST_CASE("a folder in an entry's place is reported, removed by clear, and replaced by a store",
          "[cache]") {
  TemporaryFolder tmp;
  DiskCache cache(settings_for(tmp.path()));
  const CacheKey key = make_key("blocked");
  const fs::path file = entry_file(tmp.path(), key);
  fs::create_directories(file / "inside");

  SECTION("verify, list and clear see it") {
    const auto report = cache.verify();
    CHECK(report.checked == 1);
    REQUIRE(report.problems.size() == 1);
    CHECK(report.problems[0].path == file);
    CHECK(report.problems[0].reason.find("a folder has its name") != std::string::npos);
    const auto entries = cache.list();
    REQUIRE(entries.size() == 1);
    CHECK_FALSE(entries[0].problem.empty());
    const auto cleared = cache.clear();
    CHECK(cleared.removed_other == 1);
    CHECK(cleared.problems.empty());
    CHECK_FALSE(fs::exists(file));
  }
  SECTION("a store removes the user's folder and stores the entry; storing stays on") {
    const LogCapture log;
    cache.store(key, make_entry("blocked"));  // was: storing turned off for the process
    CHECK(cache.writable());
    CHECK(fs::is_regular_file(file));
    CHECK(cache.load(key));
    const CacheKey other = make_key("other");
    cache.store(other, make_entry("other"));
    CHECK(cache.load(other));
    CHECK(log.warnings({}) == 0);
    CHECK(cache.stats().stores == 2);
  }
  SECTION("one that cannot be removed skips that entry only") {
    if (!running_as_root()) {
      WARN("not root: cannot give the folder to another user; the unremovable case is not tested");
      return;
    }
    REQUIRE(::chown(file.c_str(), kStranger, static_cast<gid_t>(-1)) == 0);
    const LogCapture log;
    cache.store(key, make_entry("blocked"));
    CHECK(cache.writable());
    CHECK(fs::is_directory(file));
    CHECK(cache.stats().store_failures == 1);
    CHECK(log.warnings({"cannot store the kernel cache entry", file.string(),
                        "other entries are still stored"}) == 1);
    const CacheKey other = make_key("other");
    cache.store(other, make_entry("other"));
    CHECK(cache.load(other));
    const auto cleared = cache.clear();
    REQUIRE(cleared.problems.size() == 1);
    CHECK(cleared.problems[0].reason.find("owned by user 54321") != std::string::npos);
  }
}

TEST_CASE("in a shared sticky folder, another user's fan-out folder does not stop storing",
          "[cache]") {
  if (!running_as_root()) {
    WARN("not root: cannot make a folder of another user; the shared-folder case is not tested");
    return;
  }
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "shared";
  fs::create_directory(dir);
  REQUIRE(::chmod(dir.c_str(), 01777) == 0);
  DiskCache cache(settings_for(dir));
  const CacheKey theirs = make_key("theirs");
  const fs::path their_folder = entry_file(dir, theirs).parent_path();
  fs::create_directory(their_folder);
  REQUIRE(::chown(their_folder.c_str(), kStranger, static_cast<gid_t>(-1)) == 0);

  // Before: root wrote into the other user's folder, and another user's store failed with
  // EACCES, which turned storing off for the whole process.
  const LogCapture log;
  cache.store(theirs, make_entry("theirs"));
  CHECK(cache.writable());
  CHECK(cache.stats().store_failures == 0);
  const fs::path own = DiskCache::own_entry_path(dir, theirs.hex());
  CHECK(own.parent_path() == dir / (theirs.hex().substr(0, 2) + ".0"));
  CHECK(fs::is_regular_file(own));
  CHECK(fs::is_empty(their_folder));
  CHECK(cache.load(theirs) == as_stored(theirs, make_entry("theirs")));
  CHECK(DiskCache(settings_for(dir)).load(theirs));
  int stored = 0;
  for (int i = 0; stored < 3; ++i) {
    const CacheKey key = make_key("mine" + std::to_string(i));
    if (entry_file(dir, key).parent_path() == their_folder) continue;
    cache.store(key, make_entry("mine"));
    CHECK(fs::is_regular_file(entry_file(dir, key)));
    ++stored;
  }
  CHECK(cache.stats().stores == 4);
  CHECK(log.warnings({}) == 0);
  // The user's own subfolder is an ordinary part of the cache: listed, verified, cleared.
  CHECK(cache.list().size() == 4);
  CHECK(cache.verify().problems.empty());
  CHECK(cache.clear().removed_entries == 4);
  CHECK_FALSE(fs::exists(own.parent_path()));
  CHECK(fs::exists(their_folder));  // theirs to remove

  // Where the user's own subfolder is refused too, that one entry is skipped, with a warning.
  fs::create_directory(own.parent_path());
  REQUIRE(::chown(own.parent_path().c_str(), kStranger, static_cast<gid_t>(-1)) == 0);
  cache.store(theirs, make_entry("theirs"));
  CHECK(cache.writable());
  CHECK(cache.stats().store_failures == 1);
  CHECK(log.warnings({"cannot store the kernel cache entry", "owned by user 54321"}) == 1);
}

namespace {

/// Stores an entry in a fresh cache under /tmp, makes its fan-out folder unreadable and
/// verifies; returns what went wrong ("" if verify reported exactly that folder, unreadable).
/// No Catch2 macros: it also runs in a forked child.
std::string verify_with_unreadable_subfolder() {
  std::string pattern = (fs::temp_directory_path() / "jitvec-unreadable-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "mkdtemp failed";
  const fs::path dir = pattern;
  std::string outcome;
  {
    DiskCache cache(settings_for(dir));
    const CacheKey key = make_key("hidden");
    cache.store(key, make_entry("hidden"));
    const fs::path subfolder = entry_file(dir, key).parent_path();
    if (::chmod(subfolder.c_str(), 0) != 0) return "chmod failed";
    const auto report = cache.verify();
    ::chmod(subfolder.c_str(), 0700);
    if (report.problems.size() != 1) {
      outcome = std::to_string(report.problems.size()) + " problems reported";
    } else if (report.problems[0].path != subfolder) {
      outcome = "the problem names " + report.problems[0].path.string();
    } else if (report.problems[0].reason.find("unreadable folder") == std::string::npos) {
      outcome = "the reason is: " + report.problems[0].reason;
    }
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return outcome;
}

}  // namespace

TEST_CASE("an unreadable fan-out folder is reported by verify", "[cache]") {
  if (!running_as_root()) {
    CHECK(verify_with_unreadable_subfolder().empty());
    return;
  }
  // Root reads any folder: run the case in a child that has become the user nobody.
  int channel[2];
  REQUIRE(::pipe(channel) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(channel[0]);
    std::string outcome = "cannot become user 65534";
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) outcome = verify_with_unreadable_subfolder();
    const ssize_t written = ::write(channel[1], outcome.data(), outcome.size());
    ::_exit(written == static_cast<ssize_t>(outcome.size()) ? 0 : 1);
  }
  ::close(channel[1]);
  std::string outcome;
  char buffer[512];
  for (ssize_t got; (got = ::read(channel[0], buffer, sizeof buffer)) > 0;) {
    outcome.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(channel[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(outcome == "");
}

TEST_CASE("a cache folder under a parent others can write to is refused, naming the parent",
          "[cache]") {
  TemporaryFolder tmp;
  const fs::path open_parent = tmp.path() / "open";
  fs::create_directory(open_parent);
  REQUIRE(::chmod(open_parent.c_str(), 0777) == 0);
  const fs::path dir = open_parent / "cache";
  const LogCapture log;
  DiskCache cache(settings_for(dir));
  CHECK_FALSE(cache.writable());
  CHECK(log.warnings({"refuses its kernel cache folder " + dir.string(),
                      "the folder " + open_parent.string() + " above it is refused",
                      "not sticky (mode 0777)"}) == 1);
  const auto report = cache.verify();
  REQUIRE(report.problems.size() == 1);
  CHECK(report.problems[0].path == dir);

  // A sticky parent (like /tmp) is fine.
  REQUIRE(::chmod(open_parent.c_str(), 01777) == 0);
  DiskCache sticky(settings_for(dir));
  CHECK(sticky.writable());
}

TEST_CASE("a cache folder another user owns is refused, by root too", "[cache]") {
  if (!running_as_root()) {
    WARN("not root: cannot make a folder of another user; the other-owner case is not tested");
    return;
  }
  TemporaryFolder tmp;
  const fs::path dir = tmp.path() / "theirs";
  const CacheKey key = make_key("planted");
  DiskCache(settings_for(dir)).store(key, make_entry("planted"));
  REQUIRE(::chown(dir.c_str(), kStranger, static_cast<gid_t>(-1)) == 0);
  const LogCapture log;
  DiskCache cache(settings_for(dir));
  CHECK_FALSE(cache.writable());
  CHECK_FALSE(cache.load(key));
  CHECK(log.warnings({dir.string(), "owned by user 54321, and root uses only its own folders"}) ==
        1);
  DiskCache reader(settings_for(tmp.path() / "mine", {dir}));
  CHECK_FALSE(reader.load(key));
}

TEST_CASE("a folder that is not to be created is not created", "[cache]") {
  TemporaryFolder tmp;
  auto settings = settings_for(tmp.path() / "not-yet");
  settings.create_dir = false;
  const LogCapture log;
  DiskCache cache(settings);
  CHECK_FALSE(cache.writable());
  CHECK(cache.list().empty());
  CHECK(cache.verify().problems.empty());
  CHECK_FALSE(fs::exists(settings.dir));
  CHECK(log.warnings({}) == 0);
}
