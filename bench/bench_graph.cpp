#include "bench_graph.hpp"

#include <fmt/core.h>

#include <string>
#include <tuple>
#include <utility>

#include "checks.hpp"
#include "cuda/stream.hpp"
#include "gpu_cases.hpp"
#include "gpu_timing.hpp"

namespace bench {
namespace {

using jitvec::Array;

constexpr std::int64_t kN = 1024;
constexpr int kCalls = 16;
constexpr int kBatches = 20;
constexpr int kReplaysPerBatch = 30;  // 480 kernels queued per batch, either way

struct Chain {
  const GraphInputs& in;
  CUstream stream;
  Array x;
  std::vector<Array> t;

  Chain(const GraphInputs& inputs, CUstream s)
      : in(inputs), stream(s), x(inputs.x_device->slice(0, 0, kN)) {
    for (int k = 0; k < kCalls; ++k) {
      t.push_back(Array::empty(jitvec::DType::float32, {kN}, jitvec::Memory::device, in.device, s));
    }
  }
  // The 16 calls; inside a capture they run on the capturing stream, outside on `stream`.
  void calls() const {
    const float mean = static_cast<float>(in.mean), sigma = static_cast<float>(in.sigma);
    for (int k = 0; k < kCalls; ++k) {
      const Array& prev = k == 0 ? x : t[static_cast<std::size_t>(k - 1)];
      const Array& out = t[static_cast<std::size_t>(k)];
      if (k % 2 == 0) {
        (*in.gaussian_pdf)(prev, mean, sigma, jitvec::out(out), jitvec::on(stream));
      } else {
        (*in.add)(prev, x, jitvec::out(out), jitvec::on(stream));
      }
    }
  }
  void poison_outputs() const {
    for (const Array& out : t) poison(out, stream);
  }
  // Every stage against float64, from the device's previous stage; the worst stage's check.
  Check check() const {
    const std::vector<float>& xs = *in.x_host;
    std::vector<float> prev(xs.begin(), xs.begin() + kN);
    Check worst;
    bool failed = false;
    std::int64_t checked = 0;
    for (int k = 0; k < kCalls; ++k) {
      const std::vector<float> got = t[static_cast<std::size_t>(k)].to_vector<float>(stream);
      const Check c =
          k % 2 == 0
              ? check_output(got,
                             [&](std::int64_t i) {
                               return gaussian_pdf_reference(prev[static_cast<std::size_t>(i)],
                                                             static_cast<float>(in.mean),
                                                             static_cast<float>(in.sigma));
                             },
                             kGaussianFloat32)
              : check_output(got,
                             [&](std::int64_t i) {
                               return static_cast<double>(prev[static_cast<std::size_t>(i)]) +
                                      static_cast<double>(xs[static_cast<std::size_t>(i)]);
                             },
                             kAddFloat32);
      if (!c.passed()) {
        if (!failed) worst = c;  // the first failing stage is the one to report
        failed = true;
      } else if (!failed && (k == 0 || c.max_rel_error >= worst.max_rel_error)) {
        worst = c;
      }
      checked += c.checked;
      prev = got;
    }
    worst.checked = checked;  // every stage's elements
    return worst;
  }
};

}  // namespace

void run_graph_cases(const GraphInputs& inputs, const CaseRunner& run_case) {
  jitvec::cuda::OwnedStream stream(inputs.device);
  Chain chain(inputs, stream.get());
  chain.calls();  // loops loaded, blocks warm
  stream.synchronize();
  const jitvec::Graph graph = jitvec::capture(jitvec::Stream(stream.get()), [&] { chain.calls(); },
                                              inputs.device);
  double replay_us = 0, direct_us = 0;
  std::tie(replay_us, direct_us) = host_us_per_call_interleaved(
      stream.get(), kBatches, kReplaysPerBatch, [&] { graph.replay(); },
      [&] { chain.calls(); });
  const double replay_per_call = replay_us / kCalls, direct_per_call = direct_us / kCalls;
  const std::string method = fmt::format(
      "host time per ufunc call: {} batches of {} x {} chained calls (1024 float32, out= each) "
      "back to back on a created stream, median of batch averages; replay and direct batches "
      "alternate",
      kBatches, kReplaysPerBatch, kCalls);

  run_case({"graph_replay16", "jitvec", kN, "float32"}, [&](Record& r) {
    r.time_ms = replay_per_call / 1000.0;
    r.method = "Graph::replay() of the 16 captured calls; " + method;
    r.extra.emplace_back("replay_us", replay_us);
    r.extra.emplace_back("graph_nodes", static_cast<double>(graph.nodes()));
    r.compare_time("direct_calls", direct_per_call / 1000.0, kRatioTimeOverCeiling);
    chain.poison_outputs();
    graph.replay();
    note_check(r, chain.check());
  });
  run_case({"graph_direct16", "jitvec", kN, "float32"}, [&](Record& r) {
    r.time_ms = direct_per_call / 1000.0;
    r.method = "the same 16 calls made directly; " + method;
    chain.poison_outputs();
    chain.calls();
    note_check(r, chain.check());
  });
}

}  // namespace bench
