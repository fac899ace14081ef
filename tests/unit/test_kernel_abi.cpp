// kernels/kernel_abi: one argument layout for every kernel and host entry, the packer that fills
// it, and the check that the compiled kernels' parameters sit where the packer writes them
// (read back from the PTX that NVRTC makes, so it runs without a GPU).
#include <cstring>
#include <regex>

#include "catch.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_kinds.hpp"
#include "kernels/module_source.hpp"

using namespace jitvec;
using namespace jitvec::kernels;

namespace {

codegen::LoopSpec mixed_spec() {
  // An int8 scalar slot between pointers, a double, a uint16: every alignment case.
  codegen::LoopSpec spec = codegen::LoopSpec::exact(Signature::parse("float32(int8, float64, uint16)"));
  spec.inputs = {DType::int8, DType::float32, DType::uint16};
  return spec;
}

codegen::LoopSpec three_output_spec() {
  // Three outputs of different sizes after an int8 scalar slot; one stored in another dtype.
  codegen::LoopSpec spec =
      codegen::LoopSpec::exact(Signature::parse("(float32, int8, float64)(int8, float64)"));
  spec.outputs = {DType::float32, DType::int8, DType::float32};
  return spec;
}

// (offset, size) of every .param of PTX entry `name`, in order.
std::vector<std::pair<std::size_t, std::size_t>> ptx_params(const std::string& ptx, const std::string& name) {
  const std::size_t entry = ptx.find(".entry " + name + "(");
  REQUIRE(entry != std::string::npos);
  const std::size_t end = ptx.find(')', entry);
  const std::string list = ptx.substr(entry, end - entry);
  std::vector<std::pair<std::size_t, std::size_t>> params;
  const std::regex param(R"(\.param\s+(?:\.align\s+(\d+)\s+)?\.([usbf])(\d+)(?:\s+\.ptr[^\n]*?)?\s+[A-Za-z_0-9]+(?:\[(\d+)\])?)");
  std::size_t offset = 0;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), param); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::size_t element = std::stoul(m[3]) / 8;
    const std::size_t count = m[4].matched ? std::stoul(m[4]) : 1;
    const std::size_t align = m[1].matched ? std::stoul(m[1]) : element;
    offset = (offset + align - 1) / align * align;
    params.emplace_back(offset, element * count);
    offset += element * count;
  }
  return params;
}

}  // namespace

TEST_CASE("the argument layout follows C's natural alignment", "[kernels][abi]") {
  const ArgLayout l = arg_layout(mixed_spec());
  CHECK(l.inputs == 3);
  CHECK(l.pointer_offset[0] == 0);
  CHECK(l.scalar_offset[0] == 8);   // int8
  CHECK(l.pointer_offset[1] == 16);
  CHECK(l.scalar_offset[1] == 24);  // float64
  CHECK(l.pointer_offset[2] == 32);
  CHECK(l.scalar_offset[2] == 40);  // uint16
  CHECK(l.out_offset[0] == 48);
  CHECK(l.scalar_mask_offset == 56);
  CHECK(l.lane_mask_offset == 60);
  CHECK(l.shape_offset == 64);
  CHECK(l.size(ShapeBlock::count) == 72);
  CHECK(l.parameter_count() == 10);
}

TEST_CASE("several outputs take one pointer each, after the inputs", "[kernels][abi]") {
  const ArgLayout l = arg_layout(three_output_spec());
  CHECK(l.inputs == 2);
  CHECK(l.outputs == 3);
  CHECK(l.scalar_offset[1] == 24);  // float64
  CHECK(l.out_offset[0] == 32);
  CHECK(l.out_offset[1] == 40);
  CHECK(l.out_offset[2] == 48);
  CHECK(l.scalar_mask_offset == 56);
  CHECK(l.shape_offset == 64);
  CHECK(l.parameter_count() == 10);
  int a = 0;
  float x = 0, z = 0;
  signed char y = 0;
  const void* inputs[2] = {&a, nullptr};
  void* outs[3] = {&x, &y, &z};
  alignas(8) unsigned char scalars[2][16] = {};
  KernelArgs args;
  args.pack(l, inputs, scalars, outs, 0b10, 0);
  const auto* image = static_cast<const unsigned char*>(args.image());
  void** params = args.kernel_params();
  for (int j = 0; j < 3; ++j) {
    const void* p;
    std::memcpy(&p, image + l.out_offset[j], 8);
    CHECK(p == outs[j]);
    CHECK(params[4 + j] == image + l.out_offset[j]);
  }
  CHECK(params[7] == image + l.scalar_mask_offset);
  CHECK(params[9] == image + l.shape_offset);
}

TEST_CASE("the packer writes every argument where the layout says", "[kernels][abi]") {
  const codegen::LoopSpec spec = mixed_spec();
  const ArgLayout l = arg_layout(spec);
  int a = 0, b = 0;
  float out = 0;
  void* outs[1] = {&out};
  const void* inputs[3] = {&a, nullptr, &b};
  alignas(8) unsigned char scalars[3][16] = {};  // 16 bytes a scalar (ScalarSlot)
  const double s1 = 2.5;
  std::memcpy(scalars[1], &s1, 8);
  scalars[0][0] = 0x5a;  // an array input's slot is copied too (it is ignored by the kernels)
  KernelArgs args;
  args.pack(l, inputs, scalars, outs, 0b010, 0);
  args.set_lane_mask(l, 0b101);
  args.set_count(l, 12345);
  const auto* image = static_cast<const unsigned char*>(args.image());
  auto read_ptr = [&](std::size_t off) { const void* p; std::memcpy(&p, image + off, 8); return p; };
  CHECK(read_ptr(l.pointer_offset[0]) == &a);
  CHECK(read_ptr(l.pointer_offset[1]) == nullptr);
  CHECK(read_ptr(l.pointer_offset[2]) == &b);
  CHECK(image[l.scalar_offset[0]] == 0x5a);
  double got;
  std::memcpy(&got, image + l.scalar_offset[1], 8);
  CHECK(got == 2.5);
  CHECK(read_ptr(l.out_offset[0]) == &out);
  unsigned mask, lanes;
  std::memcpy(&mask, image + l.scalar_mask_offset, 4);
  std::memcpy(&lanes, image + l.lane_mask_offset, 4);
  CHECK(mask == 0b010);
  CHECK(lanes == 0b101);
  long long n;
  std::memcpy(&n, image + l.shape_offset, 8);
  CHECK(n == 12345);
  // kernelParams point into the image, one per parameter, in order.
  void** params = args.kernel_params();
  CHECK(params[0] == image + l.pointer_offset[0]);
  CHECK(params[5] == image + l.scalar_offset[2]);
  CHECK(params[6] == image + l.out_offset[0]);
  CHECK(params[9] == image + l.shape_offset);
}

TEST_CASE("every compiled kernel's parameters lie where the packer writes them", "[kernels][abi][nvrtc]") {
  const codegen::UfuncSource one{"f", "__device__ float f(signed char a, double b, unsigned short c) { return a + b * c; }", "", 1};
  const codegen::UfuncSource three{
      "f", "__device__ void f(signed char a, double b, float& x, signed char& y, double& z) { x = a; y = a; z = b; }", "", 1};
  const bool several = GENERATE(false, true);
  const codegen::UfuncSource& ufunc = several ? three : one;
  const codegen::LoopSpec spec = several ? three_output_spec() : mixed_spec();
  INFO(spec.describe());
  const ArgLayout l = arg_layout(spec);
  const compile::CudaBinary binary = compile::compile_cuda(generate_cuda_source(ufunc, {}, spec), "f", "sm_90");
  for (const KernelVariant& variant : module_variants(spec)) {
    const std::string name = kernel_name(variant);
    INFO(name);
    const auto params = ptx_params(binary.ptx, name);
    REQUIRE(static_cast<int>(params.size()) == l.parameter_count());
    for (int k = 0; k < l.inputs; ++k) {
      CHECK(params[2 * k].first == l.pointer_offset[k]);
      CHECK(params[2 * k + 1].first == l.scalar_offset[k]);
      CHECK(params[2 * k + 1].second == l.scalar_size[k]);
    }
    for (int j = 0; j < l.outputs; ++j) CHECK(params[2 * l.inputs + j].first == l.out_offset[j]);
    const int masks = 2 * l.inputs + l.outputs;
    CHECK(params[masks].first == l.scalar_mask_offset);
    CHECK(params[masks + 1].first == l.lane_mask_offset);
    CHECK(params[masks + 2].first == l.shape_offset);
    CHECK(params.back().first + params.back().second == l.size(kind_row(variant.kind).shape));
  }
}

TEST_CASE("the tiled kernel has no fixed copy for the all-arrays pattern; the others do", "[kernels][abi]") {
  const codegen::LoopSpec spec = mixed_spec();
  const std::vector<std::uint32_t> masks = specialized_scalar_masks(spec);
  REQUIRE(masks == std::vector<std::uint32_t>{0u, 6u});
  CHECK(has_pattern_copy(spec, KernelKind::contig_vec, 0));
  CHECK(has_pattern_copy(spec, KernelKind::contig_vec, 6));
  CHECK_FALSE(has_pattern_copy(spec, KernelKind::tiled, 0));
  CHECK(has_pattern_copy(spec, KernelKind::tiled, 6));
  CHECK_FALSE(has_pattern_copy(spec, KernelKind::strided32, 6));  // never pattern-specialized
  CHECK_FALSE(has_pattern_copy(spec, KernelKind::contig_vec, 2));  // not a specialized pattern
  CHECK(variant_for(spec, KernelKind::tiled, 0) == KernelVariant{KernelKind::tiled, std::nullopt});
  CHECK(variant_for(spec, KernelKind::tiled, 6) == KernelVariant{KernelKind::tiled, 6u});
  CHECK(variant_for(spec, KernelKind::contig_vec, 3) == KernelVariant{KernelKind::contig_vec, std::nullopt});
  const codegen::UfuncSource one{"f", "__device__ float f(signed char a, double b, unsigned short c) { return a + b * c; }", "", 1};
  const std::string source = generate_cuda_source(one, {}, spec);
  CHECK(source.find("jitvec_tiled(") != std::string::npos);
  CHECK(source.find("jitvec_tiled_s6(") != std::string::npos);
  CHECK(source.find("jitvec_tiled_s0(") == std::string::npos);
  CHECK(source.find("jitvec_contig_vec_s0(") != std::string::npos);
}
