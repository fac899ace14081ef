// src/kernels/reduction_source.hpp: the whole source of a reduction module: the module that
// serves Ufunc::reduce, or the one that serves Ufunc::accumulate, for one accumulator type.
// Each is compiled only when its method is first called (or precompiled).
//
// Its LoopSpec: loop T(T, T) (the ufunc's signature chosen for the accumulator), inputs
// {S, T} (the input array's storage type, then T: the partials of later passes), outputs {O}
// (the output's storage type). The text is the target's prelude, the helpers and the user's
// function (codegen/source_parts, under #line), the combiner jitvec_apply(T, T) (the same
// apply function as the map loops), reduction_common(), then the reduce family (reduce.hpp)
// or the scan family (scan.hpp): GPU kernels, or host entry points.
#pragma once

#include <string>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"

namespace jitvec::kernels {

/// Which method a reduction module serves.
enum class ReductionMethod { reduce, accumulate };

std::string generate_reduction_source(bool host, const codegen::UfuncSource& ufunc,
                                      const std::vector<const codegen::HelperSource*>& helpers,
                                      const codegen::LoopSpec& spec, ReductionMethod method);

}  // namespace jitvec::kernels
