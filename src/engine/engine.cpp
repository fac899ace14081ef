#include "jitvec/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <thread>

#include "cache/cache_settings.hpp"
#include "codegen/parameter_names.hpp"
#include "codegen/reserved_names.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/nvrtc_library.hpp"
#include "core/edit_distance.hpp"
#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "definitions/definition_file.hpp"
#include "engine/accuracy_ranges.hpp"
#include "engine/derivative.hpp"
#include "engine/engine_impl.hpp"
#include "engine/fusion.hpp"
#include "kernels/module_source.hpp"
#include "launch/strided_params.hpp"

namespace jitvec {
namespace {

// Definitions name their origin by file name only: #line directives (and so the generated
// source and its cache key) stay the same wherever the definition file is read from.
std::string origin_name(const std::string& file) {
  return file.empty() ? std::string() : std::filesystem::path(file).filename().string();
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

void check_definition(const char* what, const std::string& name, const std::string& source) {
  if (!is_identifier(name)) {
    throw DefinitionError(fmt::format("{} name '{}' is not a C++ identifier", what, name));
  }
  if (auto reason = codegen::reserved_name_reason(name)) {
    throw DefinitionError(fmt::format("{} name {}", what, *reason));
  }
  if (source.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw DefinitionError(fmt::format("{} '{}' has an empty source", what, name));
  }
  if (codegen::identifiers_in(source).count(name) == 0) {
    throw DefinitionError(fmt::format(
        "the source of {} '{}' does not mention '{}': it must define a function of that name",
        what, name, name));
  }
}

// "; did you mean 'name'?" for the defined name nearest `wanted` (at most a third of its
// letters changed, at least 2), else ".".
std::string closest_suggestion(const std::string& wanted, const std::vector<std::string>& names) {
  const std::size_t limit = std::max<std::size_t>(2, wanted.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& name : names) {
    const std::size_t d = detail::edit_distance(wanted, name);
    if (d < best_distance) {
      best = &name;
      best_distance = d;
    }
  }
  return best ? fmt::format("; did you mean '{}'?", *best) : std::string(".");
}

}  // namespace

// The same checks and origin names for the definitions made elsewhere (engine/gufunc.cpp).
namespace engine {
void check_definition_text(const char* what, const std::string& name, const std::string& source) {
  check_definition(what, name, source);
}
std::string definition_origin(const std::string& file) { return origin_name(file); }
}  // namespace engine

// ---- NVRTC, loaded while the first context is made ----
namespace {

// A GPU process's first compile would start by loading NVRTC (tens of milliseconds); the first
// context takes longer still, so the load runs beside it and the context's maker waits for it
// (cuda::set_first_context_hook). A
// process whose loops come from the disk cache never uses it; one without NVRTC notices
// nothing until a compile needs it. JITVEC_PRELOAD_NVRTC=0 turns this off.
class NvrtcPreload {
 public:
  /// JITVEC_PRELOAD_NVRTC: 0/false/no/off (any case) turns the preload off; 1/true/yes/on or
  /// unset keeps it; anything else is warned about once and the preload stays on.
  static bool preload_wanted() {
    const char* setting = std::getenv("JITVEC_PRELOAD_NVRTC");
    if (!setting || !*setting) return true;
    std::string lower;
    for (const char* c = setting; *c; ++c)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
    if (lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
    if (lower != "1" && lower != "true" && lower != "yes" && lower != "on")
      detail::warn_once("JITVEC_PRELOAD_NVRTC",
                        fmt::format("JITVEC_PRELOAD_NVRTC='{}' is not a switch (expected 1, true, "
                                    "yes, on, 0, false, no or off); NVRTC is preloaded",
                                    setting));
    return true;
  }
  /// Before the first context: starts loading NVRTC on a worker thread.
  static void start() {
    if (!preload_wanted()) return;
    try {
      loader() = std::thread([] { compile::preload_nvrtc(); });
    } catch (const std::system_error&) {  // no thread to be had: NVRTC loads at its first use
    }
  }
  /// After the first context (made or not): waits for the load, so that no thread is inside
  /// dlopen when the process exits.
  static void finish() {
    if (loader().joinable()) loader().join();
  }

 private:
  static std::thread& loader() {
    static std::thread* const thread = new std::thread();  // never destroyed: joined in finish
    return *thread;
  }
};

const bool nvrtc_preload_registered =
    (cuda::set_first_context_hook(&NvrtcPreload::start, &NvrtcPreload::finish), true);

}  // namespace

// ---- Engine::Impl ----

Engine::Impl::Impl(EngineOptions opts) : options(std::move(opts)) {
  cache::CacheSettings settings = cache::resolve_cache_settings(cache::CacheOverrides{
      options.cache.dir, options.cache.read_only_dirs, options.cache.disabled,
      options.cache.max_size});
  if (!settings.disabled) disk_ = std::make_unique<cache::DiskCache>(std::move(settings));
}

Target Engine::Impl::default_target() {
  // Every call asks: once known, one load answers (std::call_once cost a call 80 instructions).
  if (default_target_known_.load(std::memory_order_acquire)) return default_target_;
  std::call_once(default_target_once_, [this] {
    if (options.default_target) {
      default_target_ = *options.default_target;
      return;
    }
    if (const char* env = std::getenv("JITVEC_TARGET"); env && *env) {
      if (auto t = parse_target(env)) {
        default_target_ = *t;
        return;
      }
      detail::warn_once("JITVEC_TARGET", fmt::format("JITVEC_TARGET='{}' is not one of cuda, cpu, "
                                                     "parallel; ignoring it", env));
    }
    default_target_ = cuda::device_count() > 0 ? Target::cuda : Target::cpu;
  });
  default_target_known_.store(true, std::memory_order_release);
  return default_target_;
}

namespace {

// The `parallel` target's thread count: EngineOptions::threads, else JITVEC_NUM_THREADS (a
// positive integer), else 0 (one per hardware thread).
int pool_threads(int option) {
  if (option != 0) return option;
  const char* env = std::getenv("JITVEC_NUM_THREADS");
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (*end == '\0' && n >= 1 && n <= 4096) return static_cast<int>(n);
  detail::warn_once("JITVEC_NUM_THREADS",
                    fmt::format("JITVEC_NUM_THREADS='{}' is not a thread count from 1 to 4096; using one "
                                "thread per core", env));
  return 0;
}

}  // namespace

cpu::ThreadPool& Engine::Impl::thread_pool() {
  std::call_once(pool_once_, [this] { pool_ = std::make_unique<cpu::ThreadPool>(pool_threads(options.threads)); });
  return *pool_;
}

engine::PipelineStaging& Engine::Impl::staging(int device) {
  std::lock_guard<std::mutex> lock(staging_mutex_);
  auto& slot = staging_[device];
  if (!slot) slot = std::make_unique<engine::PipelineStaging>(device);
  return *slot;
}

engine::LoopDefinition Engine::Impl::loop_definition(const detail::UfuncImpl& ufunc,
                                                     const codegen::LoopSpec& spec) const {
  std::shared_lock<std::shared_mutex> lock(registry_mutex);
  engine::LoopDefinition def;
  def.ufunc = &ufunc.source;
  def.helpers = codegen::helpers_used(ufunc.source.source, helpers);
  def.spec = spec;
  def.contract = ufunc.fastmath;
  return def;
}

// A loop's build (disk cache or compiler) and load, with the recovery rule: a cached binary
// that fails to load (a damaged entry that passed the checksum, a stale driver's cubin, an
// entry another program wrote) is a miss. It is counted as one, compiled again and stored over
// the entry; only an error of the fresh build or load reaches the caller.
template <class Build, class Load>
auto Engine::Impl::build_and_load(const std::string& what, Build build, Load load) {
  auto built = build(engine::LookupMode::use_cache);
  if (built.origin.from_cache) {
    try {
      return load(built);
    } catch (const std::exception& e) {
      detail::log().warn("cached loop {} for {} failed to load ({}); compiling it again",
                         built.origin.key_hex, what, e.what());
      counters.disk_hits--;
      counters.disk_misses++;
      built = build(engine::LookupMode::compile);
    }
  }
  return load(built);
}

// A loop builds no kernel when it is made: each is built when a call first needs it (its own
// module, engine/cuda_loop.hpp). A module of every kernel that the disk cache already has
// (`jitvec compile`, Ufunc::precompile) is loaded at once and serves every kernel.
std::shared_ptr<const engine::CudaLoop> Engine::Impl::make_cuda_loop(
    const detail::UfuncImpl& ufunc, const codegen::LoopSpec& spec, int device) {
  const cuda::DeviceInfo& info = cuda::device_info(device);
  const std::string arch = compile::arch_for_device(info.cc_major, info.cc_minor);
  engine::LoopDefinition definition = loop_definition(ufunc, spec);
  definition.common_source = kernels::cuda_module_common(*definition.ufunc, definition.helpers, spec);
  auto load = [this, device](const engine::CudaBinaries& binaries) {
    const auto started = std::chrono::steady_clock::now();
    cuda::Module module = cuda::Module::load(device, binaries.cubin, binaries.ptx);
    counters.load_microseconds += engine::microseconds_since(started);
    return module;
  };
  auto build = [this, definition, arch, load, device](const kernels::KernelSelection& kernels,
                                                      bool compile) -> std::optional<cuda::Module> {
    engine::LoopDefinition def = definition;
    def.kernels = kernels;
    if (!compile) {
      std::optional<engine::CudaBinaries> cached = engine::find_cuda_loop(def, arch, disk_.get(), counters);
      if (!cached) return std::nullopt;
      try {
        return load(*cached);
      } catch (const std::exception& e) {  // compiled again (and stored over it) by the build
        detail::log().warn("cached loop {} for '{}' failed to load ({}); compiling it again",
                           cached->origin.key_hex, def.ufunc->name, e.what());
        counters.disk_hits--;
        return std::nullopt;
      }
    }
    return build_and_load(
        fmt::format("'{}' {} on cuda:{}", def.ufunc->name, def.spec.describe(), device),
        [&](engine::LookupMode mode) {
          return engine::build_cuda_loop(def, arch, disk_.get(), counters, mode);
        },
        load);
  };
  // Stand-ins run the same inlined function, so the same bits, unless contraction may differ.
  auto loop = std::make_shared<const engine::CudaLoop>(spec, device, build, options.stand_ins && !ufunc.fastmath);
  if (std::optional<engine::CudaBinaries> whole = engine::find_cuda_loop(definition, arch, disk_.get(), counters)) {
    try {
      loop->adopt_whole_module(load(*whole));
    } catch (const std::exception& e) {  // each kernel is then built on its own
      detail::log().warn("cached loop {} for '{}' {} failed to load ({}); its kernels are built as "
                         "calls need them",
                         whole->origin.key_hex, ufunc.name, spec.describe(), e.what());
    }
  }
  return loop;
}

std::shared_ptr<const engine::HostLoop> Engine::Impl::make_host_loop(
    const detail::UfuncImpl& ufunc, const codegen::LoopSpec& spec) {
  const engine::LoopDefinition definition = loop_definition(ufunc, spec);
  auto load = [this](const engine::HostBinary& binary) {
    const auto started = std::chrono::steady_clock::now();
    cpu::HostModule module = cpu::HostModule::load_bytes(binary.shared_object);
    counters.load_microseconds += engine::microseconds_since(started);
    return module;
  };
  auto build = [this, definition, load](const kernels::KernelSelection& entries) {
    engine::LoopDefinition def = definition;
    def.kernels = entries;
    return build_and_load(
        fmt::format("'{}' {} on the host", def.ufunc->name, def.spec.describe()),
        [&](engine::LookupMode mode) { return engine::build_host_loop(def, disk_.get(), counters, mode); },
        load);
  };
  auto loop = std::make_shared<const engine::HostLoop>(spec, build);
  if (std::optional<engine::HostBinary> whole = engine::find_host_loop(definition, disk_.get(), counters)) {
    try {
      loop->adopt_whole_module(load(*whole));
    } catch (const std::exception& e) {
      detail::log().warn("cached loop {} for '{}' {} failed to load ({}); its entry points are built "
                         "as calls need them",
                         whole->origin.key_hex, ufunc.name, spec.describe(), e.what());
    }
  }
  return loop;
}

std::shared_ptr<const engine::CudaLoop> Engine::Impl::cuda_loop(const detail::UfuncImpl& ufunc,
                                                                const codegen::LoopSpec& spec,
                                                                int device) {
  bool hit = false;
  auto loop = ufunc.cuda_loops.get_or_build(
      spec, device, [&] { return make_cuda_loop(ufunc, spec, device); }, hit);
  if (hit) memory_hits++;
  return loop;
}

std::shared_ptr<const engine::HostLoop> Engine::Impl::host_loop(const detail::UfuncImpl& ufunc,
                                                                const codegen::LoopSpec& spec) {
  bool hit = false;
  auto loop = ufunc.host_loops.get_or_build(
      spec, -1, [&] { return make_host_loop(ufunc, spec); }, hit);
  if (hit) memory_hits++;
  return loop;
}

std::shared_ptr<detail::UfuncImpl> Engine::Impl::find_ufunc(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(registry_mutex);
  auto it = ufuncs.find(name);
  if (it != ufuncs.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& entry : ufuncs) names.push_back(entry.first);
  if (names.empty()) {
    throw DefinitionError(fmt::format(
        "no ufunc named '{}' is defined in this engine, which defines no ufuncs yet", name));
  }
  throw DefinitionError(fmt::format("no ufunc named '{}' is defined in this engine{} Defined: {}",
                                    name, closest_suggestion(name, names),
                                    fmt::join(names, ", ")));
}

detail::UfuncImpl& Engine::Impl::copy_ufunc() {
  std::call_once(copy_once_, [this] {
    // One loop per dtype, ordered so that each dtype's first safe cast is to itself.
    std::vector<Signature> signatures;
    for (const char* t : {"bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64",
                          "int64", "float32", "float64"}) {
      signatures.push_back(Signature::parse(fmt::format("{}({})", t, t)));
    }
    copy_ufunc_ = std::make_unique<detail::UfuncImpl>(
        *this, nullptr, "jitvec_copy", std::move(signatures),
        codegen::UfuncSource{"jitvec_copy",
                             "template <typename T> __device__ T jitvec_copy(T x) { return x; }",
                             "", 1, ""},
        Target::cuda);
  });
  return *copy_ufunc_;
}

// ---- Engine ----

Engine::Engine() : Engine(EngineOptions{}) {}
Engine::Engine(EngineOptions options) : impl_(std::make_shared<Impl>(std::move(options))) {}

Engine::~Engine() {
  // The ufuncs own the Impl too (their handles outlive the Engine); emptying the registry
  // breaks the cycle Impl -> registry -> UfuncImpl -> Impl. Ufuncs still held elsewhere keep
  // working; the last one frees the Impl.
  std::map<std::string, std::shared_ptr<detail::UfuncImpl>> registered;
  std::map<std::string, std::shared_ptr<detail::GufuncImpl>> registered_gufuncs;
  {
    std::unique_lock<std::shared_mutex> lock(impl_->registry_mutex);
    registered.swap(impl_->ufuncs);
    registered_gufuncs.swap(impl_->gufuncs);
  }
}  // the ufuncs no handle holds are freed here, outside the lock; impl_ goes with the last share

Engine& Engine::global() {
  static Engine engine;
  return engine;
}

void Engine::define_device_function(const std::string& name, const std::string& source,
                                    const VectorizeOptions& origin) {
  check_definition("device function", name, source);
  std::unique_lock<std::shared_mutex> lock(impl_->registry_mutex);
  if (impl_->helpers.count(name) || impl_->ufuncs.count(name)) {
    throw DefinitionError(fmt::format("'{}' is already defined in this engine", name));
  }
  impl_->helpers.emplace(
      name, codegen::HelperSource{name, source, origin_name(origin.origin_file), origin.origin_line,
                                  origin.origin_file});
}

Ufunc Engine::vectorize(const std::string& name, const std::vector<std::string>& signatures,
                        const std::string& source, const VectorizeOptions& options) {
  check_definition("ufunc", name, source);
  if (signatures.empty()) {
    throw DefinitionError(fmt::format("ufunc '{}' needs at least one signature", name));
  }
  std::vector<Signature> parsed;
  std::vector<std::size_t> kept;  // the index in `signatures` of each parsed one
  for (std::size_t k = 0; k < signatures.size(); ++k) {
    const std::string& text = signatures[k];
    Signature signature = Signature::parse(text);
    // A signature given twice is one loop (NumPy's rule: a warning, the duplicate dropped).
    if (const auto same = std::find(parsed.begin(), parsed.end(), signature); same != parsed.end()) {
      const std::size_t first = kept[static_cast<std::size_t>(same - parsed.begin())];
      detail::log().warn("{}ufunc '{}': signature {} \"{}\" repeats signature {} \"{}\" ({}); the duplicate is "
                         "dropped",
                         options.origin_file.empty() ? std::string() : options.origin_file + ": ", name, k + 1,
                         text, first + 1, signatures[first], signature.to_string());
      continue;
    }
    parsed.push_back(std::move(signature));
    kept.push_back(k);
    if (parsed.back().args.size() != parsed.front().args.size()) {
      throw DefinitionError(fmt::format(
          "ufunc '{}': signature \"{}\" takes {} inputs but \"{}\" takes {}; every signature of "
          "a ufunc takes the same number",
          name, text, parsed.back().args.size(), signatures.front(), parsed.front().args.size()));
    }
    if (parsed.back().results.size() != parsed.front().results.size()) {
      throw DefinitionError(fmt::format(
          "ufunc '{}': signature \"{}\" returns {} results but \"{}\" returns {}; every signature "
          "of a ufunc returns the same number",
          name, text, parsed.back().results.size(), signatures.front(), parsed.front().results.size()));
    }
    if (parsed.back().args.size() + parsed.back().results.size() > launch::kMaxOperands) {
      throw DefinitionError(fmt::format(
          "ufunc '{}' takes {} inputs and returns {} results; jitvec supports at most {} in all",
          name, parsed.back().args.size(), parsed.back().results.size(), launch::kMaxOperands));
    }
  }
  auto impl = std::make_shared<detail::UfuncImpl>(
      *impl_, impl_, name, std::move(parsed),
      codegen::UfuncSource{name, source, origin_name(options.origin_file), options.origin_line,
                           options.origin_file},
      options.target);
  impl->identity = options.identity;
  impl->fastmath = options.fastmath;
  if (!options.ranges.empty()) {
    try {
      engine::check_ranges(codegen::parameter_names(source, name, static_cast<int>(impl->signatures[0].args.size())),
                           options.ranges, fmt::format("ufunc '{}'", name));
    } catch (const ArgumentError& e) {
      throw DefinitionError(e.what());
    }
    impl->accuracy_ranges = options.ranges;
  }
  std::unique_lock<std::shared_mutex> lock(impl_->registry_mutex);
  if (impl_->helpers.count(name) || impl_->ufuncs.count(name)) {
    throw DefinitionError(fmt::format("'{}' is already defined in this engine", name));
  }
  impl_->ufuncs.emplace(name, impl);
  return Ufunc(impl);
}

std::vector<Ufunc> Engine::load_definitions(const std::filesystem::path& file) {
  const definitions::DefinitionSet set = definitions::parse_definition_file(file);
  auto located = [](const definitions::SourceOrigin& origin, const std::string& entry,
                    const auto& action) {
    try {
      return action();
    } catch (const DefinitionError& e) {
      throw DefinitionError(fmt::format("{}:{}: {}: {}", origin.file, origin.line, entry, e.what()));
    } catch (const SignatureError& e) {
      throw DefinitionError(fmt::format("{}:{}: {}: {}", origin.file, origin.line, entry, e.what()));
    }
  };
  for (const auto& helper : set.helpers) {
    located(helper.origin, "device_functions." + helper.name, [&] {
      define_device_function(helper.name, helper.source,
                             VectorizeOptions{std::nullopt, helper.origin.file, helper.origin.line, std::nullopt});
      return 0;
    });
  }
  std::vector<Ufunc> defined;
  for (const auto& u : set.ufuncs) {
    defined.push_back(located(u.origin, "ufuncs." + u.name, [&] {
      VectorizeOptions opts{std::nullopt, u.origin.file, u.origin.line, std::nullopt};
      opts.identity = u.identity;
      opts.fastmath = u.fastmath;
      for (const definitions::RangeDefinition& range : u.ranges) {
        opts.ranges.push_back(InputRange{range.input, range.low, range.high});
      }
      Ufunc made = vectorize(u.name, u.signatures, u.source, opts);
      impl_->find_ufunc(u.name)->methods = u.methods;  // for `jitvec compile`
      return made;
    }));
  }
  for (const auto& g : set.gufuncs) {  // generalized ufuncs: Engine::gufunc(name) returns them
    located(g.origin, "gufuncs." + g.name, [&] {
      VectorizeOptions opts{std::nullopt, g.origin.file, g.origin.line, std::nullopt};
      guvectorize(g.name, g.signatures, g.layout, g.source, opts);
      return 0;
    });
  }
  for (const auto& f : set.fusions) {  // after the ufuncs, which they compose
    defined.push_back(located(f.origin, "fusions." + f.name, [&] {
      return fuse(f.name, f.expression, VectorizeOptions{std::nullopt, f.origin.file, f.origin.line, std::nullopt});
    }));
  }
  for (const auto& d : set.derivatives) {  // after the ufuncs, which they differentiate
    defined.push_back(located(d.origin, "derivatives." + d.name, [&] {
      const DerivativeInput wrt = d.wrt_index ? DerivativeInput(*d.wrt_index) : DerivativeInput(d.wrt_name);
      return engine::derivative(*impl_, impl_, d.of, wrt, d.value,
                                DerivativeOptions{d.name, std::nullopt, d.origin.file, d.origin.line});
    }));
  }
  return defined;
}

Ufunc Engine::fuse(const std::string& name, const std::string& expression,
                   const VectorizeOptions& options) {
  return engine::fuse(*impl_, impl_, name, expression, options);
}

Ufunc Engine::derivative(const std::string& ufunc, const DerivativeInput& wrt,
                         const DerivativeOptions& options) {
  return engine::derivative(*impl_, impl_, ufunc, wrt, /*value=*/false, options);
}

Ufunc Engine::value_and_derivative(const std::string& ufunc, const DerivativeInput& wrt,
                                   const DerivativeOptions& options) {
  return engine::derivative(*impl_, impl_, ufunc, wrt, /*value=*/true, options);
}

Ufunc Engine::ufunc(const std::string& name) const { return Ufunc(impl_->find_ufunc(name)); }

std::vector<std::string> Engine::ufunc_names() const {
  std::shared_lock<std::shared_mutex> lock(impl_->registry_mutex);
  std::vector<std::string> names;
  for (const auto& [name, _] : impl_->ufuncs) names.push_back(name);
  return names;
}

EngineStats Engine::stats() const {
  EngineStats s;
  s.calls = impl_->calls.load();
  s.memory_hits = impl_->memory_hits.load();
  s.disk_hits = impl_->counters.disk_hits.load();
  s.disk_misses = impl_->counters.disk_misses.load();
  s.compiles = impl_->counters.compiles.load();
  s.compile_seconds = static_cast<double>(impl_->counters.compile_microseconds.load()) / 1e6;
  s.disk_read_seconds = static_cast<double>(impl_->counters.disk_read_microseconds.load()) / 1e6;
  s.load_seconds = static_cast<double>(impl_->counters.load_microseconds.load()) / 1e6;
  return s;
}

const EngineOptions& Engine::options() const { return impl_->options; }

void Engine::set_num_threads(int threads) { impl_->thread_pool().set_limit(threads); }

int Engine::num_threads() const { return impl_->thread_pool().limit(); }

int Engine::max_threads() const { return impl_->thread_pool().size(); }

}  // namespace jitvec
