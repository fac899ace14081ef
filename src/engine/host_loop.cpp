#include "engine/host_loop.hpp"

#include "jitvec/errors.hpp"
#include "kernels/host_loops.hpp"
#include "kernels/kernel_choice.hpp"

namespace jitvec::engine {

HostLoop::HostLoop(const codegen::LoopSpec& spec, ObjectBuilder build)
    : layout(kernels::arg_layout(spec)), build_(std::move(build)) {
  for (std::string& symbol : kernels::host_entry_symbols(spec)) {
    slots_.push_back(std::make_unique<Slot>(std::move(symbol)));
  }
  flat_ = &slot(kernels::kHostFlatSymbol);
  strided_ = &slot(kernels::kHostStridedSymbol);
  const std::vector<std::uint32_t> masks = kernels::specialized_scalar_masks(spec);
  for (std::size_t i = 0; i < masks.size() && i < fixed_.size(); ++i) {
    fixed_masks_[i] = masks[i];
    fixed_[i] = &slot(kernels::host_flat_symbol(spec, masks[i]));
  }
}

const HostLoop::Slot& HostLoop::slot(const std::string& symbol) const {
  for (const auto& s : slots_) {
    if (s->symbol == symbol) return *s;
  }
  throw Error("jitvec: internal error: no host entry point is named '" + symbol + "'");
}

const cpu::HostModule& HostLoop::keep(cpu::HostModule module) const {
  std::lock_guard<std::mutex> lock(modules_mutex_);
  modules_.push_back(std::make_unique<cpu::HostModule>(std::move(module)));
  return *modules_.back();
}

kernels::HostEntry HostLoop::entry(bool flat, std::uint32_t scalar_mask) const {
  const Slot* chosen = flat ? flat_ : strided_;
  if (flat) {
    for (std::size_t i = 0; i < fixed_.size(); ++i) {
      if (fixed_[i] && fixed_masks_[i] == scalar_mask) chosen = fixed_[i];
    }
  }
  const Slot& s = *chosen;
  if (kernels::HostEntry known = s.entry.load(std::memory_order_acquire)) return known;
  std::lock_guard<std::mutex> building(s.build);
  if (kernels::HostEntry known = s.entry.load(std::memory_order_acquire)) return known;
  kernels::HostEntry found = nullptr;
  if (const cpu::HostModule* whole = whole_.load(std::memory_order_acquire)) {
    try {
      found = reinterpret_cast<kernels::HostEntry>(whole->symbol(s.symbol.c_str()));
    } catch (const Error&) {  // a whole object without this entry is not trusted for it
      found = nullptr;
    }
  }
  if (!found) {
    found = reinterpret_cast<kernels::HostEntry>(
        keep(build_(kernels::KernelSelection{s.symbol})).symbol(s.symbol.c_str()));
  }
  s.entry.store(found, std::memory_order_release);
  return found;
}

void HostLoop::build_every_entry() const {
  if (whole_.load(std::memory_order_acquire)) return;
  adopt_whole_module(build_(kernels::KernelSelection{}));
}

void HostLoop::adopt_whole_module(cpu::HostModule module) const {
  const cpu::HostModule& kept = keep(std::move(module));
  const cpu::HostModule* expected = nullptr;
  whole_.compare_exchange_strong(expected, &kept, std::memory_order_acq_rel);
}

}  // namespace jitvec::engine
