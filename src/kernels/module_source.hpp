// src/kernels/module_source.hpp: the whole source of one compiled loop module.
//
// A module is: a prelude (the device one below, no #include so NVRTC stays fast, then the parts
// of the types prelude the loop needs, device_types.hpp; or the host prelude, host_prelude.hpp),
// the helpers the ufunc uses and the user's function under #line
// directives (codegen/source_parts), the apply function, the argument declarations of the
// kernel ABI (kernel_abi.hpp), then each kernel family's text:
//   GPU:  contiguous.hpp, strided.hpp, rows.hpp, tiled.hpp
//   host: host_loops.hpp
// tests/golden/ holds the output for representative loops (regenerate: scripts/update_golden.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"

namespace jitvec::kernels {

std::string generate_cuda_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec);

/// The device prelude every GPU module starts with (also the gufunc and at modules'), without
/// the types prelude.
std::string_view device_prelude();

std::string generate_host_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
