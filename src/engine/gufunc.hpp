// src/engine/gufunc.hpp: generalized ufuncs: their definition, and a call from its arguments to
// one launch (jitvec/gufunc.hpp says what a user sees).
//
// A GufuncImpl is one registered gufunc: the layout (kernels/gufunc.hpp), every signature's
// operand types, the user's source, and its loaded modules (engine/method_module.hpp), one per
// signature and device, cached on disk as the map loops are. run_gufunc() is the whole call:
//   1. sort the arguments (inputs, out= per output, stream, target) and choose the signature
//      by the ufuncs' rules (engine/type_resolution.hpp, on the inputs' dtypes);
//   2. bring every input to the target's memory in the loop's dtype (host inputs of a cuda
//      call are copied to the device; another dtype is cast by the engine's copy ufunc);
//   3. bind the core dimensions (the trailing dimensions of each operand, by name; two sizes
//      for one name is a BroadcastError naming both operands) and broadcast the loop
//      dimensions (the leading ones);
//   4. check out= (shape, exact dtype, memory, no stride 0), allocate the other outputs, copy
//      inputs that share memory with an out=;
//   5. plan the loop space (launch::plan_iteration: size-1 dimensions dropped, dimensions
//      merged) and fill one kernels::GufuncParams;
//   6. launch jitvec_gufunc (cuda) or call jitvec_gufunc_host (cpu; parallel splits the loop
//      space over the thread pool), and copy results back to the host where a ufunc would.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "engine/method_module.hpp"
#include "jitvec/engine.hpp"
#include "kernels/gufunc.hpp"

namespace jitvec::detail {

class GufuncImpl {
 public:
  /// `keep_alive` owns `engine` (as for UfuncImpl: the handles keep the engine's state alive).
  GufuncImpl(Engine::Impl& engine, std::shared_ptr<Engine::Impl> keep_alive, std::string name,
             std::vector<std::string> signature_texts, kernels::GufuncLayout layout,
             std::vector<std::vector<DType>> types, codegen::UfuncSource source,
             std::optional<Target> target);

 private:
  const std::shared_ptr<Engine::Impl> keep_alive_;

 public:
  Engine::Impl& engine;
  const std::string name;
  const std::vector<std::string> signature_texts;
  const kernels::GufuncLayout layout;
  /// Per signature: every operand's dtype, inputs then outputs.
  const std::vector<std::vector<DType>> types;
  /// Per signature: the inputs' dtypes as a Signature (result: the first output), for
  /// engine::resolve_loop.
  const std::vector<Signature> input_signatures;
  const codegen::UfuncSource source;
  const std::optional<Target> target;

  /// Signature `index`'s module: its definition and the key of its loaded copies.
  engine::MethodDefinition method(std::size_t index) const;
  codegen::LoopSpec module_key(std::size_t index) const;
  kernels::GufuncSpec spec(std::size_t index) const;

  mutable engine::MethodModules modules;
};

}  // namespace jitvec::detail

namespace jitvec::engine {

/// Parses one signature of gufunc `name` ("void(float32[:], float32[:], float32)") against
/// `layout`: the operands' dtypes. Throws SignatureError with the text for a malformed
/// signature, DefinitionError for one whose operand count or dimension counts disagree with
/// the layout.
std::vector<DType> parse_gufunc_signature(const std::string& name, std::string_view text,
                                          const kernels::GufuncLayout& layout);

/// Engine's checks of a definition's name and source, and the origin name of its file (defined
/// in engine.cpp beside vectorize's use of them).
void check_definition_text(const char* what, const std::string& name, const std::string& source);
std::string definition_origin(const std::string& file);

/// `jitvec compile`'s job (engine/precompile.hpp) when `name` is a gufunc of `engine`, else
/// nullopt: builds signature `index`'s module for `target` (cuda: for `arch`; cpu or parallel:
/// the host) through the disk cache, loading nothing. Throws ArgumentError for a bad index and
/// what the builder throws.
std::optional<BuildOrigin> precompile_gufunc(Engine& engine, const std::string& name,
                                             std::size_t index, Target target,
                                             const std::string& arch);

/// The whole call; see the header comment.
std::vector<Array> run_gufunc(const detail::GufuncImpl& gufunc, const Arg* args, std::size_t count);

}  // namespace jitvec::engine
