#include "engine/method_module.hpp"

#include <fmt/format.h>

#include <chrono>

#include "compile/nvrtc_compiler.hpp"
#include "core/log.hpp"
#include "cuda/device.hpp"
#include "engine/call_plan.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_launcher.hpp"

namespace jitvec::engine {
namespace {

// Builds with `build(mode)` and loads with `load`: a module from the disk cache that fails to
// load is counted as a miss and compiled again; only a fresh build's error reaches the caller.
template <class Build, class Load>
auto build_and_load(Engine::Impl& engine, const std::string& what, Build build, Load load) {
  auto built = build(LookupMode::use_cache);
  if (built.origin.from_cache) {
    try {
      return load(built);
    } catch (const std::exception& e) {
      detail::log().warn("cached module {} for {} failed to load ({}); compiling it again",
                         built.origin.key_hex, what, e.what());
      engine.counters.disk_hits--;
      engine.counters.disk_misses++;
      built = build(LookupMode::compile);
    }
  }
  return load(built);
}

}  // namespace

LoopDefinition method_loop_definition(Engine::Impl& engine, const MethodDefinition& method,
                                      const codegen::LoopSpec& key) {
  LoopDefinition definition;
  definition.ufunc = method.function;
  {
    std::shared_lock<std::shared_mutex> lock(engine.registry_mutex);
    definition.helpers = codegen::helpers_used(method.function->source, engine.helpers);
  }
  definition.spec = key;
  definition.method = LoopDefinition::Method{method.what, method.source};
  return definition;
}

std::shared_ptr<const CudaMethodModule> cuda_method(Engine::Impl& engine, MethodModules& modules,
                                                    const codegen::LoopSpec& key, int device,
                                                    const MethodDefinition& method) {
  bool hit = false;
  auto loaded = modules.cuda.get_or_build(key, device, [&] {
    const cuda::DeviceInfo& info = cuda::device_info(device);
    const std::string arch = compile::arch_for_device(info.cc_major, info.cc_minor);
    const LoopDefinition definition = method_loop_definition(engine, method, key);
    return build_and_load(
        engine, fmt::format("'{}' {} on cuda:{}", method.function->name, method.what, device),
        [&](LookupMode mode) { return build_cuda_loop(definition, arch, engine.disk(), engine.counters, mode); },
        [&](const CudaBinaries& binaries) {
          const auto started = std::chrono::steady_clock::now();
          cuda::Module module = cuda::Module::load(device, binaries.cubin, binaries.ptx);
          const CUfunction kernel = module.function(method.cuda_kernel);
          auto made = std::make_shared<const CudaMethodModule>(CudaMethodModule{std::move(module), kernel});
          engine.counters.load_microseconds += microseconds_since(started);
          return made;
        });
  }, hit);
  if (hit) engine.memory_hits++;
  return loaded;
}

std::shared_ptr<const HostMethodModule> host_method(Engine::Impl& engine, MethodModules& modules,
                                                    const codegen::LoopSpec& key,
                                                    const MethodDefinition& method) {
  bool hit = false;
  auto loaded = modules.host.get_or_build(key, -1, [&] {
    const LoopDefinition definition = method_loop_definition(engine, method, key);
    return build_and_load(
        engine, fmt::format("'{}' {} on the host", method.function->name, method.what),
        [&](LookupMode mode) { return build_host_loop(definition, engine.disk(), engine.counters, mode); },
        [&](const HostBinary& binary) {
          const auto started = std::chrono::steady_clock::now();
          cpu::HostModule module = cpu::HostModule::load_bytes(binary.shared_object);
          void* entry = module.symbol(method.host_symbol);
          auto made = std::make_shared<const HostMethodModule>(HostMethodModule{std::move(module), entry});
          engine.counters.load_microseconds += microseconds_since(started);
          return made;
        });
  }, hit);
  if (hit) engine.memory_hits++;
  return loaded;
}

Array converted_copy(Engine::Impl& engine, const Array& in, DType dtype, Target target,
                     Stream stream) {
  Array fresh = Array::empty(dtype, in.shape(), in.memory(), in.device(), stream);
  if (in.size() == 0) return fresh;
  detail::UfuncImpl& copy = engine.copy_ufunc();
  const Target t = in.is_device() ? Target::cuda : (target == Target::cuda ? Target::cpu : target);
  const Arg args[] = {Arg(in), Arg(out(fresh)), Arg(on(stream)), Arg(jitvec::target(t))};
  const CallPlan plan = make_call_plan(copy, t, args, std::size(args));
  if (t == Target::cuda) {
    run_on_gpu(copy, plan);
  } else {
    run_on_host(copy, plan);
  }
  return fresh;
}

}  // namespace jitvec::engine
