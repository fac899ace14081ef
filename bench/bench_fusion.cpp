#include "bench_fusion.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "checks.hpp"
#include "gpu_cases.hpp"
#include "random_inputs.hpp"

namespace bench {
namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Memory;

// 10 timed repetitions: a separate wide chain moves 16 GB a repetition.
constexpr Repetitions kFusionReps{2, 10};
constexpr Tolerance kChainFloat32{1e-5, 1e-6};

struct Chain {
  std::string name;        // chain3, chain3_wide
  std::string expression;  // the fusion
  std::vector<std::string> stage_sources;
  std::vector<std::string> stage_names;
  int stage_inputs = 2;  // inputs of each stage (the intermediate included)
  std::function<double(double, double, double, double)> reference;
};

std::vector<Chain> chains() {
  return {
      Chain{"chain3",
            "fz_h(fz_g(fz_f(x, y), z), w)",
            {"float fz_f(float x, float y) { return x * y + 1.0f; }",
             "float fz_g(float t, float z) { return t - z; }",
             "float fz_h(float u, float w) { return u * w; }"},
            {"fz_f", "fz_g", "fz_h"},
            2,
            [](double x, double y, double z, double w) { return (x * y + 1.0 - z) * w; }},
      Chain{"chain3_wide",
            "fz_h4(fz_g4(fz_f4(x, y, z, w), x, y, z), y, z, w)",
            {"float fz_f4(float x, float y, float z, float w) { return x * y + z * w; }",
             "float fz_g4(float t, float x, float y, float z) { return t * x + y - z; }",
             "float fz_h4(float u, float y, float z, float w) { return u * y - z + w; }"},
            {"fz_f4", "fz_g4", "fz_h4"},
            4,
            [](double x, double y, double z, double w) {
              const double t = x * y + z * w;
              const double u = t * x + y - z;
              return u * y - z + w;
            }},
  };
}

class FusionBench {
 public:
  FusionBench(const FusionBenchInputs& in, const FusionCaseRunner& run_case)
      : in_(in), run_case_(run_case), n_(std::int64_t{1} << (in.quick ? 20 : 28)) {}

  void run() {
    for (int k = 0; k < 4; ++k) {
      host_.push_back(
          uniform_floats(n_, -1.0, 1.0, in_.seed + 130 + static_cast<std::uint64_t>(k)));
      device_.push_back(jitvec::to_device(host_.back()));
    }
    for (const Chain& chain : chains()) run_chain(chain);
  }

 private:
  Array empty() const {
    return Array::empty(DType::float32, {n_}, Memory::device, in_.device,
                        jitvec::Stream(in_.stream));
  }

  void run_chain(const Chain& chain) {
    std::vector<jitvec::Ufunc> stages;
    for (std::size_t s = 0; s < chain.stage_names.size(); ++s) {
      std::vector<std::string> args(static_cast<std::size_t>(chain.stage_inputs), "float32");
      stages.push_back(in_.engine->vectorize(chain.stage_names[s],
                                             {fmt::format("float32({})", fmt::join(args, ", "))},
                                             chain.stage_sources[s]));
    }
    const jitvec::Ufunc fused = in_.engine->fuse("fz_" + chain.name, chain.expression);
    const Array& x = device_[0];
    const Array& y = device_[1];
    const Array& z = device_[2];
    const Array& w = device_[3];
    const jitvec::Stream stream(in_.stream);
    const Array out = empty(), t = empty(), u = empty();
    const auto fused_call = [&] { fused(x, y, z, w, jitvec::out(out), jitvec::on(stream)); };
    const auto separate_calls = [&] {
      if (chain.stage_inputs == 2) {
        stages[0](x, y, jitvec::out(t), jitvec::on(stream));
        stages[1](t, z, jitvec::out(u), jitvec::on(stream));
        stages[2](u, w, jitvec::out(out), jitvec::on(stream));
      } else {
        stages[0](x, y, z, w, jitvec::out(t), jitvec::on(stream));
        stages[1](t, x, y, z, jitvec::out(u), jitvec::on(stream));
        stages[2](u, y, z, w, jitvec::out(out), jitvec::on(stream));
      }
    };
    const double n = static_cast<double>(n_);
    const double fused_bytes = 20.0 * n;  // 4 inputs read + 1 output written
    const double separate_bytes = 3.0 * 4.0 * (chain.stage_inputs + 1) * n;
    double fused_ms = 0, separate_ms = 0;
    run_case_(Record{"fusion_" + chain.name + "_fused", "jitvec", n_, "float32"}, [&](Record& r) {
      fused_ms = in_.timer->median_ms(kFusionReps, fused_call);
      r.set_bandwidth(fused_bytes, fused_ms);
      r.compare_bandwidth("memcpy_dtod", in_.ceilings->measure_capped(fused_bytes).gbps);
      r.method = fmt::format(
          "fused {} = {} (Engine::fuse), one kernel; preallocated out=; ideal "
          "bytes: 4 inputs read + 1 output written; CUDA events, median of {}",
          fused.name(), chain.expression, kFusionReps.timed);
      check(r, out, fused_call, chain);
    });
    run_case_(Record{"fusion_" + chain.name + "_separate", "jitvec", n_, "float32"},
              [&](Record& r) {
                separate_ms = in_.timer->median_ms(kFusionReps, separate_calls);
                r.set_bandwidth(separate_bytes, separate_ms);
                r.compare_bandwidth("memcpy_dtod", in_.ceilings->measure_capped(separate_bytes).gbps);
                r.method = fmt::format(
                    "the same chain as three jitvec calls, intermediates in preallocated "
                    "out= arrays; ideal bytes: 3 x ({} read + 1 written); CUDA events "
                    "around the three calls, median of {}",
                    chain.stage_inputs, kFusionReps.timed);
                check(r, out, separate_calls, chain);
              });
    run_case_(Record{"fusion_" + chain.name + "_speedup", "jitvec", n_, "float32"}, [&](Record& r) {
      if (fused_ms <= 0 || separate_ms <= 0) throw std::runtime_error("a timing above failed");
      r.time_ms = fused_ms;
      r.compare_time("fusion_" + chain.name + "_separate", separate_ms, kRatioSpeedup);
      r.has_output = false;
      r.extra.emplace_back("ideal_speedup", separate_bytes / fused_bytes);
      r.method = fmt::format(
          "time of the three separate jitvec calls / time of the fused call "
          "(issue 13's target >= 2.5; the byte counts allow {:.1f})",
          separate_bytes / fused_bytes);
    });
  }

  template <class Call>
  void check(Record& r, const Array& out, const Call& call, const Chain& chain) const {
    poison(out, in_.stream);
    call();
    note_check(r, check_output(
                      out.to_vector<float>(jitvec::Stream(in_.stream)),
                      [&](std::int64_t i) {
                        const auto k = static_cast<std::size_t>(i);
                        return chain.reference(host_[0][k], host_[1][k], host_[2][k], host_[3][k]);
                      },
                      kChainFloat32));
  }

  const FusionBenchInputs& in_;
  const FusionCaseRunner& run_case_;
  std::int64_t n_;
  std::vector<std::vector<float>> host_;
  std::vector<Array> device_;
};

}  // namespace

void run_fusion_cases(const FusionBenchInputs& inputs, const FusionCaseRunner& run_case) {
  FusionBench(inputs, run_case).run();
}

}  // namespace bench
