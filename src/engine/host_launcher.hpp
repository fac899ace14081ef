// src/engine/host_launcher.hpp: running a planned call on the host (targets cpu, parallel).
//
// run_on_host() checks that every array is in host memory, allocates each output unless out=
// was given, plans the same iteration space as the GPU, packs the same argument image
// (kernels/kernel_abi.hpp) and calls the loop's flat or strided entry point over [0, n): in one
// piece for `cpu`, split into contiguous chunks over the engine's thread pool for `parallel`. Each element is computed by the same code in both
// cases, so the results are identical bit for bit.
#pragma once

#include "engine/call_plan.hpp"

namespace jitvec::engine {

/// Runs the call; `results[j]` receives output j (plan.nout of them): out= when given.
void run_on_host(detail::UfuncImpl& ufunc, const CallPlan& plan, Array* results);
/// The same for a ufunc of one output, returning it.
Array run_on_host(detail::UfuncImpl& ufunc, const CallPlan& plan);

}  // namespace jitvec::engine
