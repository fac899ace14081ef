// src/engine/reduction.hpp: Ufunc::reduce and Ufunc::accumulate, from the call to the passes.
//
// A reduction call resolves the accumulator loop T(T, T) (ReduceOptions::dtype, else the first
// such loop the input casts to safely), checks out=, the axes and the identity rule, then
// describes the work as kernels::ReductionParams: the kept dimensions (each output element)
// and the reduced dimensions (what each folds), both in the input's logical order, size-1
// dimensions dropped and neighbours merged where the strides allow (merge_dims). The pass
// plan (plan_reduce_passes) is plain data, the same on every target: which kind (rows or cols,
// kernels/reduce.hpp), the chunks, and the passes over the partials. A target only runs it:
// the GPU launches one kernel per pass; the host calls the module's entry with the pass's
// items, all at once (cpu) or split over the thread pool (parallel), which changes nothing
// in the order. accumulate is planned the same way (kernels/scan.hpp).
//
// Each method has its module (kernels/reduction_source.hpp), one per accumulator, input and
// output type, built the first time the method is called: a reduce compiles no scan kernel and
// an accumulate no reduce kernel. It is built, cached on disk and loaded as a method module
// (engine/method_module.hpp, key field "method" = kReduceMethod or kAccumulateMethod), and
// `jitvec compile` precompiles each method a definition file lists (reduction_loop_definition()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "engine/loop_builder.hpp"
#include "jitvec/engine.hpp"
#include "kernels/reduce.hpp"
#include "kernels/scan.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

/// The cache key's "method" field of the reduce and the accumulate modules (also what a
/// definition file's `methods` lists).
inline constexpr const char* kReduceMethod = "reduce";
inline constexpr const char* kAccumulateMethod = "accumulate";

/// Dimensions after merging, innermost first; `out` is empty when no output strides were given.
struct MergedDims {
  std::vector<std::int64_t> sizes, in, out;
  int ndim() const { return static_cast<int>(sizes.size()); }
};
/// Drops size-1 dimensions of `sizes` (outermost first, strides beside them) and merges
/// neighbours whose strides allow it (in every given stride set).
MergedDims merge_dims(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& in,
                      const std::vector<std::int64_t>* out);

struct ReductionPass {
  kernels::ReduceKind kind = kernels::ReduceKind::rows;
  /// Reads the partials of the pass before (type T) rather than the input (type S).
  bool reads_partials = false;
  kernels::ReductionParams params;  // in/out pointers are set by the runner
};

/// The passes of a reduction of `outputs` x `length` elements (kept dimensions `kept`: sizes,
/// input strides and output strides; reduced dimensions `reduced`: sizes and strides), with
/// input type S and accumulator T. Pure: the order rule of kernels/reduce.hpp as data.
std::vector<ReductionPass> plan_reduce_passes(const MergedDims& kept, const MergedDims& reduced,
                                              DType input, DType accumulator);

/// The scan's kind for an axis of `length` elements with input stride `axis_stride` over the
/// lines `lines` (merged, innermost first).
kernels::ScanKind choose_scan(const MergedDims& lines, std::int64_t length, std::int64_t axis_stride);

/// The index of the signature T(T, T) that reduce/accumulate use for an input of `input`
/// (with ReduceOptions::dtype `dtype`); throws ArgumentError naming the ufunc and `method`.
std::size_t resolve_accumulator(const detail::UfuncImpl& ufunc, DType input,
                                std::optional<DType> dtype, const char* method);

/// The reduction module's spec: loop `signature` (T(T, T)), inputs {input, T}, outputs {out}.
codegen::LoopSpec reduction_spec(const Signature& signature, DType input, DType out);

/// The loop builder's definition of the reduce (`method` kReduceMethod) or the accumulate
/// (kAccumulateMethod) module (for `jitvec compile`).
LoopDefinition reduction_loop_definition(Engine::Impl& engine, const detail::UfuncImpl& ufunc,
                                         const codegen::LoopSpec& spec, const std::string& method);

Array reduce(const detail::UfuncImpl& ufunc, const Array& x, const ReduceOptions& options);
Array accumulate(const detail::UfuncImpl& ufunc, const Array& x, int axis,
                 const AccumulateOptions& options);

}  // namespace jitvec::engine
