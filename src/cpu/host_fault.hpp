// src/cpu/host_fault.hpp: an integer division fault in a host loop is a jitvec error, not the
// end of the process.
//
// A user's function may divide integers (`a / b`, `a % b`). On x86-64 a division by zero, and
// the one overflowing division INT_MIN / -1 (or its remainder), trap: the kernel sends SIGFPE,
// whose default action kills the whole process. jitvec's host targets (cpu, parallel) call
// every compiled loop through run_catching_division_faults(): while a guarded call runs on a
// thread, a SIGFPE raised by that thread's own instructions jumps (siglongjmp) back to the
// guard, which reports the fault; the caller throws jitvec::Error naming the ufunc and target.
// What the loop had written by then stays written: the output is partly filled, nothing else
// is touched (a loop owns no locks, memory or other state that skipping its frames could leak).
//
// The rule for users (README, "Integer division"): a ufunc must not divide an integer by zero
// (nor INT_MIN by -1). On the host it is this error; on the GPU the division does not trap and
// its value is unspecified (PTX: "machine-specific"), so guard the divisor in the source
// (`b != 0 ? a / b : 0`, NumPy's and Numba's error_model='numpy' answer) for the same answer on
// every target.
//
// jitvec's handler (SA_NODEFER, so a thread that jumped out of it can fault again) is installed
// by the first guarded call. A SIGFPE outside a guarded call gets the disposition the process had
// before (its handler, or the default action, which ends the process as before). A handler that
// other code installs after jitvec's (a test framework's, Python's faulthandler enabled late)
// sees the faults first, so a loop's fault ends the process again until
// ensure_division_fault_handler() is called; checking at every call would cost a system call
// (0.55 us on the dev machine, more than half a small cpu call). A guarded call costs one
// sigsetjmp without a signal mask (no system call): per call, or per chunk of the parallel
// target; nothing per element, so floating-point code runs as fast as before.
#pragma once

#include <string>
#include <string_view>

namespace jitvec::cpu {

/// Makes jitvec's SIGFPE handler the process's, if other code replaced it since (keeping that one
/// for faults outside jitvec's loops). The first guarded call does it.
void ensure_division_fault_handler();

/// Calls fn(context) on this thread. Returns true when an integer division fault (SIGFPE) in
/// it stopped the call part-way, false when it returned normally. Exceptions from fn pass through.
bool run_catching_division_faults(void (*fn)(void* context), void* context);

/// A host loop's entry point (kernels::HostEntry).
using HostEntryPoint = void (*)(const void* args, long long begin, long long end);

/// entry(args, begin, end) under run_catching_division_faults(); a fault throws jitvec::Error
/// naming `ufunc` and `target`, the rule and that the output may be partly written.
void call_host_entry(HostEntryPoint entry, const void* args, long long begin, long long end,
                     std::string_view ufunc, std::string_view target);

/// The message of that error (for other callers of run_catching_division_faults()).
std::string division_fault_message(std::string_view ufunc, std::string_view target);

}  // namespace jitvec::cpu
