#include "engine/loop_builder.hpp"

#include <fmt/format.h>

#include <chrono>

#include "codegen/cuda_source.hpp"
#include "codegen/host_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "core/log.hpp"
#include "cpu/host_compiler.hpp"
#include "jitvec/version.hpp"

namespace jitvec::engine {
namespace {

void add_common_fields(cache::CacheKey& key, const LoopDefinition& def) {
  key.add("jitvec", kVersion);
  key.add("ufunc", def.ufunc->name);
  key.add("loop", def.spec.describe());
}

// Runs `compile` (which fills an entry's payloads), counting and timing it, and stores the
// result. A compile error propagates with nothing stored.
template <class Compile>
BuiltLoop lookup_or_compile(const cache::CacheKey& key, const std::string& what,
                            cache::DiskCache* disk, BuildCounters& counters, Compile compile) {
  BuiltLoop built;
  built.key_hex = key.hex();
  if (disk) {
    const auto lookup_started = std::chrono::steady_clock::now();
    if (auto hit = disk->load(key)) {
      counters.disk_hits++;
      counters.disk_read_microseconds += microseconds_since(lookup_started);
      built.entry = std::move(*hit);
      built.from_cache = true;
      detail::log().debug("cache hit {} for {}", built.key_hex, what);
      return built;
    }
    counters.disk_misses++;
  }
  const auto started = std::chrono::steady_clock::now();
  compile(built.entry);
  const std::uint64_t elapsed = microseconds_since(started);
  counters.compiles++;
  counters.compile_microseconds += elapsed;
  detail::log().debug("compiled {} in {:.1f} ms (key {})", what,
                      static_cast<double>(elapsed) / 1000.0, built.key_hex);
  built.entry.key_fields = key.fields();
  if (disk) disk->store(key, built.entry);
  return built;
}

}  // namespace

cache::CacheKey cuda_loop_key(const LoopDefinition& def, const std::string& arch,
                              const std::string& source) {
  cache::CacheKey key;
  add_common_fields(key, def);
  key.add("target", "cuda");
  key.add("arch", arch);
  key.add("compiler", compile::nvrtc_version());
  key.add("options", fmt::format("{}", fmt::join(compile::nvrtc_options(arch), " ")));
  key.add("source", source);
  return key;
}

cache::CacheKey host_loop_key(const LoopDefinition& def, const std::string& source) {
  const cpu::HostCompiler& compiler = cpu::host_compiler();
  cache::CacheKey key;
  add_common_fields(key, def);
  key.add("target", "host");
  key.add("arch", "host");
  key.add("compiler", compiler.identity);
  key.add("options", fmt::format("{}", fmt::join(compiler.flags, " ")));
  key.add("source", source);
  return key;
}

BuiltLoop build_cuda_loop(const LoopDefinition& def, const std::string& arch,
                          cache::DiskCache* disk, BuildCounters& counters) {
  const std::string source = codegen::generate_cuda_source(*def.ufunc, def.helpers, def.spec);
  const cache::CacheKey key = cuda_loop_key(def, arch, source);
  return lookup_or_compile(
      key, fmt::format("'{}' {} for {}", def.ufunc->name, def.spec.describe(), arch), disk,
      counters, [&](cache::CacheEntry& entry) {
        compile::CudaBinary binary = compile::compile_cuda(source, def.ufunc->name, arch);
        entry.add_payload(cache::payload_kind::cubin, std::move(binary.cubin));
        entry.add_payload(cache::payload_kind::ptx, std::move(binary.ptx));
        entry.add_payload(cache::payload_kind::source, source);
        entry.add_payload(cache::payload_kind::log, std::move(binary.log));
      });
}

BuiltLoop build_host_loop(const LoopDefinition& def, cache::DiskCache* disk,
                          BuildCounters& counters) {
  const std::string source = codegen::generate_host_source(*def.ufunc, def.helpers, def.spec);
  const cache::CacheKey key = host_loop_key(def, source);
  return lookup_or_compile(
      key, fmt::format("'{}' {} for the host", def.ufunc->name, def.spec.describe()), disk,
      counters, [&](cache::CacheEntry& entry) {
        std::string so = cpu::compile_shared_object(source, def.ufunc->name, cpu::host_compiler());
        entry.add_payload(cache::payload_kind::shared_object, std::move(so));
        entry.add_payload(cache::payload_kind::source, source);
      });
}

}  // namespace jitvec::engine
