// src/cli/compile_order.hpp: the order in which `jitvec compile` starts its jobs.
//
// The jobs run on a few worker threads (two on the dev machine), so the wall time is about the
// total compile time divided by the threads, plus the tail: whatever one thread still compiles
// after the other ran out of work. A job that starts last and is long makes that tail long
// (polar_distance's two loops take ~5-6 s of the samples' ~24 s, the gufuncs' ~0.3 s each), so
// jobs start longest first (the LPT rule), by an estimate made before anything is compiled:
//   - a ufunc's map or reduction module before a gufunc's (a map module holds a dozen kernels,
//     the tiled and scalar-pattern copies included; a gufunc module two or three);
//   - then by the element function's operands (inputs + outputs: every kernel loads and stores
//     each) times the code it brings (the distinct identifiers of its source and of the helpers
//     it uses, transitively, comments left out; for a fusion, its stages'), larger first;
//   - ties keep the plan's order (engine/precompile.hpp: ufunc, signature, target, arch).
// The order changes no binary and no output but the order of the progress lines, which are
// printed as jobs finish anyway; --json lists the loops in the plan's order.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/precompile.hpp"
#include "jitvec/engine.hpp"

namespace jitvec::cli {

/// The estimate of `job`'s compile time above, in no unit: only comparisons between jobs of one
/// engine mean anything. 0 for a name the engine does not define (that job fails at once).
double estimated_compile_cost(Engine& engine, const engine::PrecompileJob& job);

/// Indices into `jobs` in the order to start them: estimated cost, largest first; equal
/// estimates in the order of `jobs`.
std::vector<std::size_t> start_order(Engine& engine, const std::vector<engine::PrecompileJob>& jobs);

}  // namespace jitvec::cli
