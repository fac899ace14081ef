#include "engine/host_loop.hpp"

namespace jitvec::engine {

HostLoop::HostLoop(cpu::HostModule loaded, const codegen::LoopSpec& spec)
    : module(std::move(loaded)),
      layout(kernels::arg_layout(spec)),
      flat(reinterpret_cast<kernels::HostEntry>(module.symbol(kernels::kHostFlatSymbol))),
      strided(reinterpret_cast<kernels::HostEntry>(module.symbol(kernels::kHostStridedSymbol))) {}

}  // namespace jitvec::engine
