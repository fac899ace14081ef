#include "engine/host_loop.hpp"

#include "jitvec/errors.hpp"

namespace jitvec::engine {

HostLoop::HostLoop(const codegen::LoopSpec& spec, ObjectBuilder build)
    : layout(kernels::arg_layout(spec)),
      build_(std::move(build)),
      slots_{{{kernels::kHostFlatSymbol, {}, {}}, {kernels::kHostStridedSymbol, {}, {}}}} {}

const cpu::HostModule& HostLoop::keep(cpu::HostModule module) const {
  std::lock_guard<std::mutex> lock(modules_mutex_);
  modules_.push_back(std::make_unique<cpu::HostModule>(std::move(module)));
  return *modules_.back();
}

kernels::HostEntry HostLoop::entry(bool flat) const {
  const Slot& s = slots_[flat ? 0 : 1];
  if (kernels::HostEntry known = s.entry.load(std::memory_order_acquire)) return known;
  std::lock_guard<std::mutex> building(s.build);
  if (kernels::HostEntry known = s.entry.load(std::memory_order_acquire)) return known;
  kernels::HostEntry found = nullptr;
  if (const cpu::HostModule* whole = whole_.load(std::memory_order_acquire)) {
    try {
      found = reinterpret_cast<kernels::HostEntry>(whole->symbol(s.symbol));
    } catch (const Error&) {  // a whole object without this entry is not trusted for it
      found = nullptr;
    }
  }
  if (!found) {
    found = reinterpret_cast<kernels::HostEntry>(keep(build_(kernels::KernelSelection{s.symbol})).symbol(s.symbol));
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
