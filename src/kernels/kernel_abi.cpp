#include "kernels/kernel_abi.hpp"

#include <fmt/format.h>

#include <cstring>

#include "codegen/source_parts.hpp"

namespace jitvec::kernels {
namespace {

std::size_t align_up(std::size_t offset, std::size_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

launch::IndexWidth width_of(ShapeBlock shape) {
  return shape == ShapeBlock::strided32 ? launch::IndexWidth::bits32 : launch::IndexWidth::bits64;
}

const char* shape_suffix(ShapeBlock shape) {
  switch (shape) {
    case ShapeBlock::count: return "count";
    case ShapeBlock::strided32: return "strided32";
    case ShapeBlock::strided64: return "strided64";
  }
  return "count";
}

// The shape block's field: its type and name.
std::string shape_field(ShapeBlock shape) {
  switch (shape) {
    case ShapeBlock::count: return "long long n";
    case ShapeBlock::strided32: return "jitvec_strided32_params p";
    case ShapeBlock::strided64: return "jitvec_strided64_params p";
  }
  return "long long n";
}

constexpr ShapeBlock kShapes[] = {ShapeBlock::count, ShapeBlock::strided32, ShapeBlock::strided64};

}  // namespace

ArgLayout arg_layout(const codegen::LoopSpec& spec) {
  ArgLayout layout;
  layout.inputs = static_cast<int>(spec.inputs.size());
  std::size_t offset = 0;
  for (int k = 0; k < layout.inputs; ++k) {
    offset = align_up(offset, sizeof(void*));
    layout.pointer_offset[k] = static_cast<std::uint16_t>(offset);
    offset += sizeof(void*);
    const std::size_t size = dtype_size(spec.loop.args[k]);
    offset = align_up(offset, dtype_alignment(spec.loop.args[k]));
    layout.scalar_offset[k] = static_cast<std::uint16_t>(offset);
    layout.scalar_size[k] = static_cast<std::uint8_t>(size);
    offset += size;
  }
  offset = align_up(offset, sizeof(void*));
  layout.outputs = spec.nout();
  for (int j = 0; j < layout.outputs; ++j) {
    layout.out_offset[j] = static_cast<std::uint16_t>(offset);
    offset += sizeof(void*);
  }
  layout.scalar_mask_offset = static_cast<std::uint16_t>(offset);
  layout.lane_mask_offset = static_cast<std::uint16_t>(offset + 4);
  layout.shape_offset = static_cast<std::uint16_t>(align_up(offset + 8, 8));
  return layout;
}

std::size_t ArgLayout::size(ShapeBlock shape) const {
  const std::size_t block = shape == ShapeBlock::count
                                ? sizeof(long long)
                                : launch::strided_params_size(width_of(shape), inputs + outputs);
  return shape_offset + block;
}

std::string output_suffix(const codegen::LoopSpec& spec, int j) {
  return spec.nout() == 1 ? std::string() : std::to_string(j);
}

std::string kernel_parameters(const codegen::LoopSpec& spec, ShapeBlock shape) {
  std::string params;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    params += fmt::format("const {}* __restrict__ in{}, const {} s{}, ",
                          codegen::c_type(spec.inputs[k]), k, codegen::c_type(spec.loop.args[k]), k);
  }
  for (int j = 0; j < spec.nout(); ++j) {
    params += fmt::format("{}* __restrict__ out{}, ", codegen::c_type(spec.outputs[j]), output_suffix(spec, j));
  }
  params += fmt::format("const unsigned scalar_mask, const unsigned lane_mask, const {}", shape_field(shape));
  return params;
}

std::string host_entry_opening(const codegen::LoopSpec& spec, ShapeBlock shape, const char* symbol) {
  std::string text = fmt::format(
      "extern \"C\" __attribute__((visibility(\"default\"))) void {0}(const void* image, long long "
      "begin, long long end) {{\n"
      "  const jitvec_args_{1}& args = *static_cast<const jitvec_args_{1}*>(image);\n",
      symbol, shape_suffix(shape));
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    text += fmt::format("  const {0}* __restrict__ in{2} = args.in{2};\n  const {1} s{2} = args.s{2};\n",
                        codegen::c_type(spec.inputs[k]), codegen::c_type(spec.loop.args[k]), k);
  }
  for (int j = 0; j < spec.nout(); ++j) {
    text += fmt::format("  {0}* __restrict__ out{1} = args.out{1};\n", codegen::c_type(spec.outputs[j]),
                        output_suffix(spec, j));
  }
  text +=
      "  const unsigned scalar_mask = args.scalar_mask;\n"
      "  const unsigned lane_mask = args.lane_mask;\n";
  text += shape == ShapeBlock::count ? "  const long long n = args.n;\n"
                                     : fmt::format("  const jitvec_{}_params& p = args.p;\n", shape_suffix(shape));
  text += "  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;\n";
  return text;
}

std::string shape_block_declarations(const codegen::LoopSpec& spec) {
  const int operands = spec.operand_count();
  return launch::strided_params_declaration("jitvec_strided32_params", launch::IndexWidth::bits32, operands) +
         launch::strided_params_declaration("jitvec_strided64_params", launch::IndexWidth::bits64, operands);
}

std::string argument_structs(const codegen::LoopSpec& spec) {
  const ArgLayout layout = arg_layout(spec);
  std::string text;
  std::string fields;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    fields += fmt::format("  const {}* in{};\n  {} s{};\n", codegen::c_type(spec.inputs[k]), k,
                          codegen::c_type(spec.loop.args[k]), k);
  }
  for (int j = 0; j < spec.nout(); ++j) {
    fields += fmt::format("  {}* out{};\n", codegen::c_type(spec.outputs[j]), output_suffix(spec, j));
  }
  fields += "  unsigned scalar_mask;\n  unsigned lane_mask;\n";
  auto check = [](const char* type, const std::string& field, std::size_t offset) {
    return fmt::format("static_assert(__builtin_offsetof({}, {}) == {}, \"jitvec: argument layout\");\n",
                       type, field, offset);
  };
  for (ShapeBlock shape : kShapes) {
    const std::string type = fmt::format("jitvec_args_{}", shape_suffix(shape));
    text += fmt::format("struct {} {{\n{}  {};\n}};\n", type, fields, shape_field(shape));
    if (shape == ShapeBlock::count) {  // the operands' offsets, the same in every struct
      for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
        text += check(type.c_str(), fmt::format("in{}", k), layout.pointer_offset[k]);
        text += check(type.c_str(), fmt::format("s{}", k), layout.scalar_offset[k]);
      }
      for (int j = 0; j < spec.nout(); ++j) {
        text += check(type.c_str(), "out" + output_suffix(spec, j), layout.out_offset[j]);
      }
      text += check(type.c_str(), "scalar_mask", layout.scalar_mask_offset);
      text += check(type.c_str(), "lane_mask", layout.lane_mask_offset);
    }
    text += check(type.c_str(), shape == ShapeBlock::count ? "n" : "p", layout.shape_offset);
    text += fmt::format("static_assert(sizeof({}) == {}, \"jitvec: argument layout\");\n", type,
                        align_up(layout.size(shape), 8));
  }
  return text;
}

void KernelArgs::pack(const ArgLayout& layout, const void* const* inputs, const void* scalars,
                      void* const* outs, std::uint32_t scalar_mask, std::uint32_t lane_mask) {
  const auto* scalar_bytes = static_cast<const unsigned char*>(scalars);
  for (int k = 0; k < layout.inputs; ++k) {
    std::memcpy(image_ + layout.pointer_offset[k], &inputs[k], sizeof(void*));
    // 16 bytes whatever the scalar's size (a complex128 has 16): the bytes past a smaller
    // scalar land on the next fields, which are written after it, and a fixed-size copy is a
    // single move.
    std::memcpy(image_ + layout.scalar_offset[k], scalar_bytes + 16 * k, 16);
    params_[2 * k] = image_ + layout.pointer_offset[k];
    params_[2 * k + 1] = image_ + layout.scalar_offset[k];
  }
  void** next = params_ + 2 * layout.inputs;
  for (int j = 0; j < layout.outputs; ++j) {
    std::memcpy(image_ + layout.out_offset[j], &outs[j], sizeof(void*));
    *next++ = image_ + layout.out_offset[j];
  }
  std::memcpy(image_ + layout.scalar_mask_offset, &scalar_mask, 4);
  std::memcpy(image_ + layout.lane_mask_offset, &lane_mask, 4);
  next[0] = image_ + layout.scalar_mask_offset;
  next[1] = image_ + layout.lane_mask_offset;
  next[2] = image_ + layout.shape_offset;
}

void KernelArgs::set_lane_mask(const ArgLayout& layout, std::uint32_t lane_mask) {
  std::memcpy(image_ + layout.lane_mask_offset, &lane_mask, 4);
}

void KernelArgs::set_count(const ArgLayout& layout, long long n) {
  std::memcpy(image_ + layout.shape_offset, &n, sizeof(n));
}

void KernelArgs::set_space(const ArgLayout& layout, const launch::IterationSpace& space,
                           ShapeBlock shape, const launch::BlockLayout& block) {
  launch::fill_strided_params(space, width_of(shape), image_ + layout.shape_offset, block);
}

}  // namespace jitvec::kernels
