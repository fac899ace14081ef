// src/kernels/module_source.hpp: the whole source of one compiled loop module.
//
// A module is: a prelude (the device one below, no #include so NVRTC stays fast, then the parts
// of the types prelude the loop needs, device_types.hpp; or the host prelude, host_prelude.hpp),
// the helpers the ufunc uses and the user's function under #line
// directives (codegen/source_parts), the apply function, the argument declarations of the
// kernel ABI (kernel_abi.hpp), then the kernels the module holds, each from its family:
//   GPU:  the variants of kernel_kinds.hpp's table (module_variants()), in table order;
//   host: the entry points of host_loops.hpp.
// A module holds only the kernels it is asked for (a call compiles the one its layout takes;
// `jitvec compile` every one): `kernels` names them, empty meaning all. A name the loop's
// module cannot hold is an Error.
// tests/golden/ holds the output for representative loops, the common part and each kernel in
// a file of its own (regenerate: scripts/update_golden.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"

namespace jitvec::kernels {

/// Which kernels of a module: their names ("jitvec_contig_vec_s6", "jitvec_cpu_contig"), or
/// none for every kernel.
using KernelSelection = std::vector<std::string>;

std::string generate_cuda_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec, const KernelSelection& kernels = {});

/// The GPU module's text before its kernels (prelude, user code, apply function, ABI), and one
/// kernel's text: generate_cuda_source() is the first followed by each selected kernel's.
std::string cuda_module_common(const codegen::UfuncSource& ufunc,
                               const std::vector<const codegen::HelperSource*>& helpers,
                               const codegen::LoopSpec& spec);
std::string cuda_kernel_source(const codegen::LoopSpec& spec, const std::string& kernel);
/// The selected kernels' text (generate_cuda_source() less the common part).
std::string cuda_kernels_text(const codegen::LoopSpec& spec, const KernelSelection& kernels);
/// The selected host entry points' text (generate_host_source() less the common part).
std::string host_entries_text(const codegen::LoopSpec& spec, const KernelSelection& entries);

/// Every kernel a GPU (or host) module of `spec` can hold, by name, in module order.
KernelSelection cuda_kernel_names(const codegen::LoopSpec& spec);
KernelSelection host_entry_names(const codegen::LoopSpec& spec);

/// The device prelude the gufunc, at and reduction modules start with, without the types
/// prelude (a map loop's module leaves out its std:: using-declarations when its code does not
/// name std).
std::string_view device_prelude();

std::string generate_host_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec, const KernelSelection& kernels = {});
std::string host_module_common(const codegen::UfuncSource& ufunc,
                               const std::vector<const codegen::HelperSource*>& helpers,
                               const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
