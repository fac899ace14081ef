#include "cpu/host_fault.hpp"

#include <fmt/format.h>
#include <setjmp.h>
#include <signal.h>

#include <csignal>
#include <mutex>

#include "jitvec/errors.hpp"

namespace jitvec::cpu {
namespace {

struct Guard {
  sigjmp_buf jump;
  volatile sig_atomic_t armed = 0;
};

// The guard of the call running on this thread, if any. Set (so allocated) by the thread itself
// before any fault can reach the handler, which then only reads it.
thread_local Guard* t_guard = nullptr;

struct sigaction g_previous {};

void on_sigfpe(int, siginfo_t* info, void*) {
  Guard* guard = t_guard;
  if (guard != nullptr && guard->armed && info != nullptr && info->si_code > 0) {
    guard->armed = 0;
    siglongjmp(guard->jump, 1);
  }
  // Not a fault of a guarded call: the process's own disposition from here on (jitvec puts its
  // handler back at its next guarded call). A synchronous fault runs its instruction again and
  // meets that disposition (the default ends the process, as without jitvec); a SIGFPE sent with
  // kill() or raise() is raised again.
  ::sigaction(SIGFPE, &g_previous, nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(SIGFPE);
}

}  // namespace

void ensure_division_fault_handler() {
  struct sigaction current {};
  ::sigaction(SIGFPE, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_sigfpe) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  struct sigaction action {};
  action.sa_sigaction = on_sigfpe;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGFPE, &action, &current);
  // Another thread may have installed it between the query and the lock: never chain to itself.
  if (!((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_sigfpe)) {
    g_previous = current;
  }
}

bool run_catching_division_faults(void (*fn)(void* context), void* context) {
  static std::once_flag installed;
  std::call_once(installed, ensure_division_fault_handler);
  Guard guard;
  Guard* const outer = t_guard;  // a guarded call may run inside another (nested pools)
  t_guard = &guard;
  if (sigsetjmp(guard.jump, 0) != 0) {
    // Back from the handler. SA_NODEFER left SIGFPE unblocked on this thread.
    t_guard = outer;
    return true;
  }
  guard.armed = 1;
  try {
    fn(context);
  } catch (...) {
    guard.armed = 0;
    t_guard = outer;
    throw;
  }
  guard.armed = 0;
  t_guard = outer;
  return false;
}

std::string division_fault_message(std::string_view ufunc, std::string_view target) {
  return fmt::format(
      "ufunc '{}' on target {}: an integer division by zero (x / 0 or x % 0) or the overflowing "
      "INT_MIN / -1 in its source stopped the loop; the output may be partly written. jitvec "
      "loops must not divide an integer by zero: guard the divisor (b != 0 ? a / b : 0), which "
      "gives the same answer on every target (on the GPU such a division does not stop but its "
      "value is unspecified)",
      ufunc, target);
}

void call_host_entry(HostEntryPoint entry, const void* args, long long begin, long long end,
                     std::string_view ufunc, std::string_view target) {
  struct Call {
    HostEntryPoint entry;
    const void* args;
    long long begin, end;
  } call{entry, args, begin, end};
  const bool faulted = run_catching_division_faults(
      [](void* context) {
        const Call& c = *static_cast<const Call*>(context);
        c.entry(c.args, c.begin, c.end);
      },
      &call);
  if (faulted) throw Error(division_fault_message(ufunc, target));
}

}  // namespace jitvec::cpu
