// src/engine/method_module.hpp: modules that are not a ufunc's map loops, built and loaded
// like them.
//
// A generalized ufunc's kernel (kernels/gufunc.hpp) and a ufunc's at() kernel (kernels/
// ufunc_at.hpp) each live in a module of their own: the user's function with one kernel (GPU)
// or one entry point (host). They go through the same loop builder as the map loops (engine/
// loop_builder.hpp: generate -> key -> disk cache -> compiler -> store), with
// LoopDefinition::method set, so their cache keys carry a "method" field (what the module is)
// and `jitvec compile` can precompile them. A MethodModules table keeps the loaded modules in
// memory, built once per (LoopSpec, device) however many threads ask (engine/loop_table.hpp);
// a module read from the disk cache that fails to load is a miss, compiled again (the map
// loops' rule, Engine::Impl::build_and_load).
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "cpu/host_module.hpp"
#include "cuda/module.hpp"
#include "engine/loop_builder.hpp"
#include "engine/loop_table.hpp"
#include "jitvec/engine.hpp"

namespace jitvec::engine {

/// One method module: whose function, what it is (key field and messages), its text, and the
/// names of its main GPU kernel and host entry point (resolved when it is loaded; a module's
/// other kernels are found by name through `module`).
struct MethodDefinition {
  const codegen::UfuncSource* function = nullptr;
  std::string what;
  std::function<std::string(bool host, const std::vector<const codegen::HelperSource*>& helpers)> source;
  const char* cuda_kernel = nullptr;
  const char* host_symbol = nullptr;
};

struct CudaMethodModule {
  cuda::Module module;
  CUfunction kernel;  ///< MethodDefinition::cuda_kernel
};
struct HostMethodModule {
  cpu::HostModule module;
  void* entry;  ///< MethodDefinition::host_symbol
};

/// Loaded method modules, keyed by a LoopSpec that identifies the module within its owner.
struct MethodModules {
  LoopTable<CudaMethodModule> cuda;
  LoopTable<HostMethodModule> host;
};

/// The builder's definition: `method` with the helpers its function uses (resolved now).
LoopDefinition method_loop_definition(Engine::Impl& engine, const MethodDefinition& method,
                                      const codegen::LoopSpec& key);

std::shared_ptr<const CudaMethodModule> cuda_method(Engine::Impl& engine, MethodModules& modules,
                                                    const codegen::LoopSpec& key, int device,
                                                    const MethodDefinition& method);
std::shared_ptr<const HostMethodModule> host_method(Engine::Impl& engine, MethodModules& modules,
                                                    const codegen::LoopSpec& key,
                                                    const MethodDefinition& method);

/// `in` as a fresh C-contiguous array of `dtype` in the same memory, made by the engine's copy
/// ufunc (which converts as a ufunc's loads do) on `stream` (device) or on the host (`target`
/// cpu or parallel; cuda means cpu for a host array).
Array converted_copy(Engine::Impl& engine, const Array& in, DType dtype, Target target,
                     Stream stream);

}  // namespace jitvec::engine
