// src/engine/host_loop.hpp: one loop's host entry points (src/kernels/host_loops.hpp), each
// compiled (or read from the disk cache) and loaded into this process the first time a call
// asks for it; they take the argument image of kernels/kernel_abi.hpp.
//
// As with the GPU loops (cuda_loop.hpp), a call needs one entry point (for one contiguous run
// the flat one, or its copy for the call's scalar pattern; the strided one otherwise), so
// HostLoop builds none up front: entry() builds the shared object of the one asked for through
// the engine's ObjectBuilder (disk cache, else the host compiler), once however many threads
// ask. A shared object holding every entry (`jitvec compile --target cpu`, Ufunc::precompile)
// can be adopted instead.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "cpu/host_module.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/module_source.hpp"

namespace jitvec::engine {

class HostLoop {
 public:
  /// Builds and loads the shared object holding `entries` (empty: both).
  using ObjectBuilder = std::function<cpu::HostModule(const kernels::KernelSelection& entries)>;

  HostLoop(const codegen::LoopSpec& spec, ObjectBuilder build);
  HostLoop(const HostLoop&) = delete;
  HostLoop& operator=(const HostLoop&) = delete;

  /// The flat entry for `scalar_mask` (kernels::host_flat_symbol) when `flat`, else the
  /// strided one, built and loaded on first use. Throws what the build throws (CompileError,
  /// Error).
  kernels::HostEntry entry(bool flat, std::uint32_t scalar_mask) const;
  /// Builds the shared object of both entries (or reads it from the disk cache) and adopts it.
  void build_every_entry() const;
  /// Takes a shared object that exports both entries: entries not yet loaded resolve from it.
  void adopt_whole_module(cpu::HostModule module) const;

  /// Where each argument goes in the argument image.
  const kernels::ArgLayout layout;

 private:
  struct Slot {
    explicit Slot(std::string name) : symbol(std::move(name)) {}
    const std::string symbol;
    mutable std::atomic<kernels::HostEntry> entry{nullptr};
    mutable std::mutex build;
  };
  const cpu::HostModule& keep(cpu::HostModule module) const;
  const Slot& slot(const std::string& symbol) const;

  ObjectBuilder build_;
  std::vector<std::unique_ptr<Slot>> slots_;  // kernels::host_entry_symbols() order
  const Slot* flat_ = nullptr;                // the run-time flat entry's
  const Slot* strided_ = nullptr;
  std::array<const Slot*, 2> fixed_{};        // the fixed-pattern copies', by position
  std::array<std::uint32_t, 2> fixed_masks_{};
  mutable std::mutex modules_mutex_;
  mutable std::vector<std::unique_ptr<cpu::HostModule>> modules_;
  mutable std::atomic<const cpu::HostModule*> whole_{nullptr};
};

}  // namespace jitvec::engine
