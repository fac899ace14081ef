#include "engine/loop_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "codegen/portable_source.hpp"
#include "kernels/module_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "core/log.hpp"
#include "cache/compiler_memo.hpp"
#include "cpu/host_compiler.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/version.hpp"
#include "jitvec_kernels_digest.hpp"  // generated (cmake/KernelsDigest.cmake)

namespace jitvec::engine {
namespace {

void add_common_fields(cache::CacheKey& key, const LoopDefinition& def) {
  key.add("jitvec", kVersion);
  key.add("ufunc", def.ufunc->name);
  key.add("loop", def.spec.describe());
  if (def.method) {
    key.add("method", def.method->what);
  } else {
    key.add("kernels", def.kernels.empty() ? std::string("all") : fmt::format("{}", fmt::join(def.kernels, ",")));
    key.add("generator", JITVEC_KERNELS_DIGEST);
  }
}

// What the loop is, for messages.
std::string loop_what(const LoopDefinition& def) {
  if (def.method) return def.method->what;
  if (def.kernels.empty()) return def.spec.describe();
  return fmt::format("{} ({})", def.spec.describe(), fmt::join(def.kernels, ", "));
}

// The names a compiler log reports as undeclared: NVRTC's `identifier "f" is undefined`, GCC's
// `'f' was not declared in this scope` (or with typographic quotes), Clang's `use of undeclared
// identifier 'f'`. Plain string search: std::regex crashed in a process whose other libraries
// loaded another libstdc++ (its locale facets).
std::vector<std::string> undeclared_names(const std::string& log) {
  std::vector<std::string> names;
  auto add = [&](std::string name) {
    if (name.empty()) return;
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return;
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  };
  // The identifier between `open` and `close` that ends right before `suffix`, for each `suffix`.
  auto before = [&](std::string_view suffix, std::string_view close, std::string_view open) {
    for (std::size_t at = log.find(suffix); at != std::string::npos; at = log.find(suffix, at + 1)) {
      if (at < close.size() || log.compare(at - close.size(), close.size(), close) != 0) continue;
      const std::size_t end = at - close.size();  // where the closing quote starts
      if (end == 0) continue;
      const std::size_t begin = log.rfind(open, end - 1);
      if (begin == std::string::npos || begin + open.size() > end) continue;
      add(log.substr(begin + open.size(), end - begin - open.size()));
    }
  };
  // The identifier between `open` and `close` right after `prefix`, for each `prefix`.
  auto after = [&](std::string_view prefix, std::string_view open, std::string_view close) {
    for (std::size_t at = log.find(prefix); at != std::string::npos; at = log.find(prefix, at + 1)) {
      std::size_t begin = at + prefix.size();
      if (log.compare(begin, open.size(), open) != 0) continue;
      begin += open.size();
      const std::size_t end = log.find(close, begin);
      if (end == std::string::npos) continue;
      add(log.substr(begin, end - begin));
    }
  };
  before(" is undefined", "\"", "\"");
  before(" was not declared in this scope", "'", "'");
  before(" was not declared in this scope", "\u2019", "\u2018");
  after("undeclared identifier ", "'", "'");
  after("undeclared identifier ", "\u2018", "\u2019");
  return names;
}

// Runs `compile`; a compile error about undeclared functions says how to define one.
template <class Compile> void compile_with_hints(Compile& compile, cache::CacheEntry& entry) {
  try {
    compile(entry);
  } catch (const CompileError& e) {
    const std::vector<std::string> names = undeclared_names(e.log());
    if (names.empty()) throw;
    throw CompileError(
        fmt::format("{}\nhint: '{}' is not defined for this ufunc: a device function it calls "
                    "must be defined in the same engine with Engine::define_device_function(\"{}\", "
                    "source) (or in a definition file's [device_functions]) before the first call",
                    e.what(), fmt::join(names, "', '"), names.front()),
        e.ufunc(), e.log(), e.options());
  }
}

// The cached entry's binaries, or a miss: a disk hit whose entry lacks them is compiled again
// (Unpack returns nullopt for such an entry). Otherwise runs `compile` (which fills an entry's
// payloads), counting and timing it, stores the entry and returns its binaries. A compile error
// propagates with nothing stored.
template <class Binaries, class Unpack>
std::optional<Binaries> lookup(const cache::CacheKey& key, const std::string& key_hex,
                               const std::string& what, cache::DiskCache& disk,
                               BuildCounters& counters, Unpack unpack) {
  const auto lookup_started = std::chrono::steady_clock::now();
  if (auto hit = disk.load(key, key_hex)) {
    if (std::optional<Binaries> binaries = unpack(std::move(*hit))) {
      counters.disk_hits++;
      counters.disk_read_microseconds += microseconds_since(lookup_started);
      binaries->origin = BuildOrigin{key_hex, true};
      detail::log().debug("cache hit {} for {}", key_hex, what);
      return binaries;
    }
    detail::log().warn("cache entry {} for {} holds no binary; compiling it again", key_hex, what);
  }
  return std::nullopt;
}

template <class Binaries, class Unpack, class Compile>
Binaries lookup_or_compile(const cache::CacheKey& key, const std::string& what,
                           cache::DiskCache* disk, BuildCounters& counters, LookupMode mode,
                           Unpack unpack, Compile compile) {
  const std::string key_hex = key.hex();
  if (disk && mode == LookupMode::use_cache) {
    if (std::optional<Binaries> hit = lookup<Binaries>(key, key_hex, what, *disk, counters, unpack)) {
      return std::move(*hit);
    }
    counters.disk_misses++;
  }
  cache::CacheEntry entry;
  const auto started = std::chrono::steady_clock::now();
  compile_with_hints(compile, entry);
  const std::uint64_t elapsed = microseconds_since(started);
  counters.compiles++;
  counters.compile_microseconds += elapsed;
  detail::log().debug("compiled {} in {:.1f} ms (key {})", what,
                      static_cast<double>(elapsed) / 1000.0, key_hex);
  entry.key_fields = key.fields();
  if (disk) disk->store(key, entry);
  std::optional<Binaries> binaries = unpack(std::move(entry));
  if (!binaries) throw Error(fmt::format("compiling {} gave no binary (key {})", what, key_hex));
  binaries->origin = BuildOrigin{key_hex, false};
  return std::move(*binaries);
}

// Moves a payload out of an entry (entries hold a handful of payloads).
std::optional<std::string> take_payload(cache::CacheEntry& entry, std::string_view kind) {
  for (cache::Payload& payload : entry.payloads) {
    if (payload.kind == kind) return std::move(payload.bytes);
  }
  return std::nullopt;
}

std::optional<CudaBinaries> unpack_cuda(cache::CacheEntry&& entry) {
  std::optional<std::string> cubin = take_payload(entry, cache::payload_kind::cubin);
  std::optional<std::string> ptx = take_payload(entry, cache::payload_kind::ptx);
  if ((!cubin || cubin->empty()) && (!ptx || ptx->empty())) return std::nullopt;
  return CudaBinaries{cubin ? std::move(*cubin) : std::string(),
                      ptx ? std::move(*ptx) : std::string(), {}};
}

std::optional<HostBinary> unpack_host(cache::CacheEntry&& entry) {
  std::optional<std::string> so = take_payload(entry, cache::payload_kind::shared_object);
  if (!so || so->empty()) return std::nullopt;
  return HostBinary{std::move(*so), {}};
}

}  // namespace

cache::CacheKey cuda_loop_key(const LoopDefinition& def, const std::string& arch,
                              const std::string& source) {
  cache::CacheKey key;
  add_common_fields(key, def);
  key.add("target", "cuda");
  key.add("arch", arch);
  key.add("compiler", compile::nvrtc_key_version());  // no NVRTC needed for a lookup
  key.add("options", fmt::format("{}", fmt::join(compile::nvrtc_options(arch, def.contract), " ")));
  key.add("source", source);
  return key;
}

namespace {

// The host compiler for `def`: fastmath's loops may contract a * b + c. The process resolves
// it once; its self-report is remembered in `disk`'s writable folder (cache/compiler_memo.hpp),
// so a warm process runs no compiler at all.
cpu::HostCompiler host_compiler_for(const LoopDefinition& def, const cache::DiskCache* disk) {
  std::optional<cache::FolderSelfReportMemo> memo;
  if (disk) {
    if (std::optional<std::filesystem::path> folder = disk->writable_path()) memo.emplace(*folder);
  }
  cpu::HostCompiler compiler = cpu::host_compiler(memo ? &*memo : nullptr);
  if (def.contract) {
    for (std::string& flag : compiler.flags) {
      if (flag == "-ffp-contract=off") flag = "-ffp-contract=fast";
    }
  }
  return compiler;
}

}  // namespace

cache::CacheKey host_loop_key(const LoopDefinition& def, const std::string& source,
                              const cache::DiskCache* disk) {
  const cpu::HostCompiler compiler = host_compiler_for(def, disk);
  cache::CacheKey key;
  add_common_fields(key, def);
  key.add("target", "host");
  key.add("arch", "host");
  key.add("compiler", compiler.identity);
  key.add("options", fmt::format("{}", fmt::join(compiler.flags, " ")));
  key.add("source", source);
  return key;
}

namespace {

// What a key hashes of the generated text: a method module's whole text; for a map loop, the
// text every module of the loop shares (prelude, user code, apply function, ABI), the kernels'
// own text being a function of the loop, the names in the "kernels" field and the generator,
// whose digest is the "generator" field. So a lookup generates no kernel text (the warm path).
std::string cuda_key_source(const LoopDefinition& def) {
  if (def.method) return def.method->source(false, def.helpers);
  return !def.common_source.empty() ? def.common_source
                                    : kernels::cuda_module_common(*def.ufunc, def.helpers, def.spec);
}
std::string host_key_source(const LoopDefinition& def) {
  if (def.method) return def.method->source(true, def.helpers);
  return !def.common_source.empty() ? def.common_source
                                    : kernels::host_module_common(*def.ufunc, def.helpers, def.spec);
}
// The whole text to compile, from the key's.
std::string cuda_full_source(const LoopDefinition& def, const std::string& key_source) {
  return def.method ? key_source : key_source + kernels::cuda_kernels_text(def.spec, def.kernels);
}
std::string host_full_source(const LoopDefinition& def, const std::string& key_source) {
  return def.method ? key_source : key_source + kernels::host_entries_text(def.spec, def.kernels);
}

std::string cuda_what(const LoopDefinition& def, const std::string& arch) {
  return fmt::format("'{}' {} for {}", def.ufunc->name, loop_what(def), arch);
}

std::string host_what(const LoopDefinition& def) {
  return fmt::format("'{}' {} for the host", def.ufunc->name, loop_what(def));
}

}  // namespace

std::optional<CudaBinaries> find_cuda_loop(const LoopDefinition& def, const std::string& arch,
                                           cache::DiskCache* disk, BuildCounters& counters) {
  if (!disk) return std::nullopt;
  const cache::CacheKey key = cuda_loop_key(def, arch, cuda_key_source(def));
  return lookup<CudaBinaries>(key, key.hex(), cuda_what(def, arch), *disk, counters, unpack_cuda);
}

std::optional<HostBinary> find_host_loop(const LoopDefinition& def, cache::DiskCache* disk,
                                         BuildCounters& counters) {
  if (!disk) return std::nullopt;
  const cache::CacheKey key = host_loop_key(def, host_key_source(def), disk);
  return lookup<HostBinary>(key, key.hex(), host_what(def), *disk, counters, unpack_host);
}

CudaBinaries build_cuda_loop(const LoopDefinition& def, const std::string& arch,
                             cache::DiskCache* disk, BuildCounters& counters, LookupMode mode) {
  const std::string key_source = cuda_key_source(def);
  const cache::CacheKey key = cuda_loop_key(def, arch, key_source);
  return lookup_or_compile<CudaBinaries>(
      key, cuda_what(def, arch), disk, counters, mode, unpack_cuda, [&](cache::CacheEntry& entry) {
        const std::string source = cuda_full_source(def, key_source);
        compile::CudaBinary binary;
        try {
          binary = compile::compile_cuda(source, def.ufunc->name, arch, def.contract);
        } catch (const CompileError& e) {
          throw codegen::with_user_lines(e, source, *def.ufunc, def.helpers);
        }
        entry.add_payload(cache::payload_kind::cubin, std::move(binary.cubin));
        entry.add_payload(cache::payload_kind::ptx, std::move(binary.ptx));
        entry.add_payload(cache::payload_kind::log, std::move(binary.log));
        if (!def.method) entry.add_payload(cache::payload_kind::source, source);  // the key has a part
      });
}

HostBinary build_host_loop(const LoopDefinition& def, cache::DiskCache* disk,
                           BuildCounters& counters, LookupMode mode) {
  const std::string key_source = host_key_source(def);
  const cache::CacheKey key = host_loop_key(def, key_source, disk);
  return lookup_or_compile<HostBinary>(
      key, host_what(def), disk, counters, mode, unpack_host, [&](cache::CacheEntry& entry) {
        const std::string source = host_full_source(def, key_source);
        std::string so;
        try {
          so = cpu::compile_shared_object(source, def.ufunc->name, host_compiler_for(def, disk));
        } catch (const CompileError& e) {
          throw codegen::with_user_lines(e, source, *def.ufunc, def.helpers);
        }
        entry.add_payload(cache::payload_kind::shared_object, std::move(so));
        if (!def.method) entry.add_payload(cache::payload_kind::source, source);
      });
}

}  // namespace jitvec::engine
