// src/engine/host_loop.hpp: one loop's shared object, loaded into this process, and its entry
// points (src/kernels/host_loops.hpp), which take the argument image of kernels/kernel_abi.hpp.
#pragma once

#include "codegen/loop_spec.hpp"
#include "cpu/host_module.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::engine {

struct HostLoop {
  /// Resolves the entry points; throws Error when the shared object lacks one.
  HostLoop(cpu::HostModule loaded, const codegen::LoopSpec& spec);

  cpu::HostModule module;
  /// Where each argument goes in the argument image.
  kernels::ArgLayout layout;
  /// kernels::kHostFlatSymbol and kernels::kHostStridedSymbol.
  kernels::HostEntry flat = nullptr;
  kernels::HostEntry strided = nullptr;
};

}  // namespace jitvec::engine
