#include "bench_layouts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "checks.hpp"
#include "gpu_cases.hpp"
#include "random_inputs.hpp"

namespace bench {
namespace {

using jitvec::Array;
using jitvec::DType;
using jitvec::Memory;
using jitvec::Shape;

// 20 timed calls (not 30): each call moves about 2 GB, and the family has 16 cases.
constexpr Repetitions kLayoutReps{2, 20};
constexpr float kMeanSigma = 1.5f;  // gaussian_pdf's sigma in the mix (bench_gpu's kSigma)
constexpr std::int64_t kRowPadding = 32;  // floats after each output row of the mix
constexpr std::int64_t kSmallSize = std::int64_t{1} << 22;  // the second buffer's elements

std::int64_t product(const Shape& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return n;
}

// `shape`'s elements of the 1-d array `base` from `offset`, as a C-ordered view.
Array region(const Array& base, std::int64_t offset, const Shape& shape) {
  return base.slice(0, offset, offset + product(shape)).reshape(shape);
}

// The distinct elements of a view: broadcast (stride 0) dimensions count once.
std::int64_t distinct_elements(const Array& view) {
  std::int64_t n = 1;
  for (int k = 0; k < view.ndim(); ++k) {
    const auto d = static_cast<std::size_t>(k);
    if (view.strides()[d] != 0) n *= view.shape()[d];
  }
  return n;
}

// A device buffer and its host copy: every input view lies in one of them.
struct Mirror {
  const Array* device;
  const std::vector<float>* host;
};

// Reads an input view's elements from the host copy of the buffer it lies in, by the index of
// an output element (NumPy broadcasting: the view's dimensions align with the output's last
// ones, its size-1 dimensions repeat).
class HostView {
 public:
  HostView(const Array& view, const std::vector<Mirror>& mirrors, int out_ndim)
      : shape_(view.shape()), strides_(view.strides()), shift_(out_ndim - view.ndim()) {
    const char* p = static_cast<const char*>(view.data());
    for (const Mirror& m : mirrors) {
      const char* begin = static_cast<const char*>(m.device->data());
      const std::size_t bytes = static_cast<std::size_t>(m.device->size()) * sizeof(float);
      if (p >= begin && p < begin + bytes) {
        host_ = m.host->data();
        base_ = (p - begin) / static_cast<std::ptrdiff_t>(sizeof(float));
        return;
      }
    }
    throw std::logic_error("a layout input is not a view of a mirrored buffer: " +
                           view.describe());
  }

  double at(const std::vector<std::int64_t>& out_index) const {
    std::int64_t offset = base_;
    for (std::size_t k = 0; k < shape_.size(); ++k) {
      if (shape_[k] != 1) offset += strides_[k] * out_index[k + static_cast<std::size_t>(shift_)];
    }
    return static_cast<double>(host_[offset]);
  }

 private:
  Shape shape_;
  jitvec::Strides strides_;
  int shift_;
  const float* host_ = nullptr;
  std::int64_t base_ = 0;
};

struct LayoutCase {
  std::string layout;         // the views, in words (the record's method)
  std::vector<Array> arrays;  // the array operands, in call order
  Array out;                  // where the call writes
  Array out_buffer;           // the memory under `out` (poisoned before the checked call)
  std::function<void(const Array& out)> call;
  std::function<double(const double* values)> reference;  // from the arrays' values
  Tolerance tolerance;
  double ideal_bytes = 0;    // what an ideal kernel moves; the ceiling copies as many
  double logical_bytes = 0;  // stepped last axis only: 4 read + 4 written an element
  std::string ideal;         // the ideal, in words
};

class LayoutBench {
 public:
  LayoutBench(const LayoutInputs& in, const CaseRunner& run_case) : in_(in), run_case_(run_case) {
    if (!in.timer || !in.ceilings || !in.add || !in.gaussian_pdf || !in.x_host || !in.x_device) {
      throw std::invalid_argument("run_layout_cases: an input is missing");
    }
    big_ = std::int64_t{1} << (in.quick ? 20 : 28);
    if (static_cast<std::int64_t>(in.x_host->size()) < big_ || in.x_device->size() < big_) {
      throw std::invalid_argument(fmt::format("run_layout_cases needs {} random inputs, got {}",
                                              big_, in.x_host->size()));
    }
    x_ = in.x_device->reshape({in.x_device->size()});
  }

  void run() {
    // The second buffer: broadcast operands and gaussian_pdf's means, in [-1, 1).
    small_host_ = uniform_floats(kSmallSize, -1.0, 1.0, in_.seed + 40);
    small_ = jitvec::to_device(small_host_);
    mirrors_ = {{&x_, in_.x_host}, {&small_, &small_host_}};

    broadcasts();
    stepped();
    permutations();
    mix();
    small_last();
  }

 private:
  // ---- the families ----

  void broadcasts() {
    const bool q = in_.quick;
    {
      const std::int64_t B = q ? 16 : 256, C = q ? 64 : 1024, L = 1024;
      measure("layout_broadcast_3d", [=] {
        return add_case(region(x_, 0, {B, 1, L}), region(small_, 0, {1, C, 1}), {B, C, L});
      });
    }
    {
      const std::int64_t N = q ? 16 : 64, C = q ? 8 : 64, H = q ? 8 : 64, W = 1024;
      measure("layout_broadcast_4d", [=] {
        return add_case(region(x_, 0, {N, 1, H, W}), region(small_, 0, {1, C, 1, W}),
                        {N, C, H, W});
      });
    }
    {
      const std::int64_t a = q ? 2 : 4, d = q ? 4 : 16, L = q ? 256 : 1024;
      measure("layout_broadcast_6d", [=] {
        return add_case(region(x_, 0, {a, 1, d, 1, d, L}), region(small_, 0, {1, d, 1, d, 1, L}),
                        {a, d, d, d, d, L});
      });
    }
  }

  void stepped() {
    for (const std::int64_t step : {2, 3, 8}) {
      measure(fmt::format("layout_stepped_last{}", step), [=] {
        const Array view = x_.slice(0, 0, big_, step);
        LayoutCase c = scalar_add_case(view, fmt::format("x[::{}] of {} elements", step, big_));
        const double n = static_cast<double>(view.size());
        const std::int64_t read = std::min<std::int64_t>(4 * step, 32);
        c.ideal_bytes = n * static_cast<double>(read + 4);
        c.logical_bytes = 8.0 * n;
        c.ideal = fmt::format(
            "physical: {} bytes read an element (min(4 step, 32): a 32-byte sector holds 8 "
            "floats) + 4 written; ratio_logical in extra counts 4 + 4",
            read);
        return c;
      });
    }
    measure("layout_stepped_outer2", [=] {
      const std::int64_t side = std::int64_t{1} << (in_.quick ? 10 : 14);
      const Array view = region(x_, 0, {side, side}).slice(0, 0, side, 2);
      LayoutCase c =
          scalar_add_case(view, fmt::format("x2d[::2, :] of a ({0}, {0}) C-ordered view", side));
      c.ideal_bytes = 8.0 * static_cast<double>(view.size());
      c.ideal = "8 bytes an element (whole rows are read, so physical = logical)";
      return c;
    });
  }

  void permutations() {
    const bool q = in_.quick;
    const Shape keep3 = q ? Shape{64, 64, 256} : Shape{512, 512, 1024};
    const Shape move3 = q ? Shape{256, 64, 64} : Shape{1024, 512, 512};
    const Shape shape4 = q ? Shape{16, 16, 64, 64} : Shape{64, 64, 256, 256};
    permutation("layout_permute_3d_keeplast", keep3, {1, 0, 2});
    permutation("layout_permute_3d_movelast", move3, {2, 1, 0});
    permutation("layout_permute_4d_keeplast", shape4, {1, 0, 2, 3});
    permutation("layout_permute_4d_movelast", shape4, {0, 3, 2, 1});
  }

  void permutation(const std::string& name, const Shape& shape, const std::vector<int>& axes) {
    measure(name, [=] {
      const Array view = region(x_, 0, shape).permute(axes);
      LayoutCase c = scalar_add_case(
          view, fmt::format("x{}.permute{}", jitvec::shape_to_string(shape), join(axes)));
      c.ideal_bytes = 8.0 * static_cast<double>(view.size());
      c.ideal = "8 bytes an element (each input element read once, each output written once)";
      return c;
    });
  }

  void mix() {
    measure("layout_mix_gaussian", [=] {
      const Shape shape = in_.quick ? Shape{64, 64, 256} : Shape{512, 512, 1024};
      const std::int64_t P = shape[0], Q = shape[1], R = shape[2];
      LayoutCase c;
      const Array x = region(x_, 0, shape).permute({1, 0, 2});
      const Array mean = region(small_, 0, {1, 1, R});
      c.arrays = {x, mean};
      c.out_buffer = Array::empty(DType::float32, {Q, P, R + kRowPadding}, Memory::device,
                                  in_.device, in_.stream);
      c.out = c.out_buffer.slice(2, 0, R);
      const jitvec::Ufunc& f = *in_.gaussian_pdf;
      c.call = [&f, x, mean](const Array& out) { f(x, mean, kMeanSigma, jitvec::out(out)); };
      c.reference = [](const double* v) {
        return gaussian_pdf_reference(v[0], v[1], static_cast<double>(kMeanSigma));
      };
      c.tolerance = kGaussianFloat32;
      c.layout = fmt::format(
          "gaussian_pdf(x.transpose(1,0,2) of a C-ordered {}, mean (1, 1, {}), sigma {} scalar, "
          "out= ({}, {}, {}) rows of a ({}, {}, {}) buffer)",
          jitvec::shape_to_string(shape), R, kMeanSigma, Q, P, R, Q, P, R + kRowPadding);
      c.ideal_bytes = 4.0 * static_cast<double>(2 * c.out.size() + R);
      c.ideal = "x read once, mean once, the output written once";
      return c;
    });
  }

  void small_last() {
    for (const std::int64_t d : {2, 3, 5, 7}) {
      measure(fmt::format("layout_smalllast_d{}", d), [=] {
        const std::int64_t N = big_ / d;
        return add_case(region(x_, 0, {N, d}), region(small_, 0, {d}), {N, d});
      });
    }
  }

  // ---- building cases ----

  // out = a + b into a new C-ordered array of `shape`; ideal: the output once plus each input's
  // distinct elements once.
  LayoutCase add_case(const Array& a, const Array& b, const Shape& shape) {
    LayoutCase c;
    c.arrays = {a, b};
    c.out_buffer = c.out = contiguous(shape);
    const jitvec::Ufunc& f = *in_.add;
    c.call = [&f, a, b](const Array& out) { f(a, b, jitvec::out(out)); };
    c.reference = [](const double* v) { return v[0] + v[1]; };
    c.tolerance = kAddFloat32;
    c.layout = fmt::format("a {} (strides {}) + b {} (strides {}) into a C-ordered {}",
                           jitvec::shape_to_string(a.shape()), join(a.strides()),
                           jitvec::shape_to_string(b.shape()), join(b.strides()),
                           jitvec::shape_to_string(shape));
    c.ideal_bytes =
        4.0 * static_cast<double>(product(shape) + distinct_elements(a) + distinct_elements(b));
    c.ideal = "the output once plus each input's distinct elements once";
    return c;
  }

  // out = view + 1 into a new C-ordered array of the view's shape (ideal set by the caller).
  LayoutCase scalar_add_case(const Array& view, std::string layout) {
    LayoutCase c;
    c.arrays = {view};
    c.out_buffer = c.out = contiguous(view.shape());
    const jitvec::Ufunc& f = *in_.add;
    c.call = [&f, view](const Array& out) { f(view, 1.0f, jitvec::out(out)); };
    c.reference = [](const double* v) { return v[0] + 1.0; };
    c.tolerance = kAddFloat32;
    c.layout = fmt::format("add({} (shape {}, strides {}), 1.0f) into a C-ordered output",
                           layout, jitvec::shape_to_string(view.shape()), join(view.strides()));
    return c;
  }

  Array contiguous(const Shape& shape) const {
    return Array::empty(DType::float32, shape, Memory::device, in_.device, in_.stream);
  }

  template <class Sequence>
  static std::string join(const Sequence& values) {
    std::string text = "(";
    for (const auto& v : values) text += (text.size() > 1 ? ", " : "") + std::to_string(v);
    return text + ")";
  }

  // ---- measuring one case ----

  void measure(const std::string& name, const std::function<LayoutCase()>& make) {
    run_case_(Record{name, "jitvec", 0, "float32"}, [&](Record& r) {
      LayoutCase c = make();
      r.n = c.out.size();
      const double ms = in_.timer->median_ms(kLayoutReps, [&] { c.call(c.out); });
      r.set_bandwidth(c.ideal_bytes, ms);
      const double copy_gbps = in_.ceilings->measure(c.ideal_bytes).gbps;
      r.compare_bandwidth("memcpy_dtod", copy_gbps);
      r.method = fmt::format("{}; preallocated out=; ideal bytes: {}; CUDA events, median of {}",
                             c.layout, c.ideal, kLayoutReps.timed);
      if (c.logical_bytes > 0) {
        const double logical_gbps = c.logical_bytes / (ms * 1e-3) / 1e9;
        r.extra.emplace_back("logical_bytes", c.logical_bytes);
        r.extra.emplace_back("logical_gbps", logical_gbps);
        r.extra.emplace_back("ratio_logical", copy_gbps > 0 ? logical_gbps / copy_gbps : 0.0);
      }
      poison(c.out_buffer, in_.stream);
      c.call(c.out);
      note_check(r, check(c));
    });
  }

  Check check(const LayoutCase& c) const {
    const Shape& shape = c.out.shape();
    const int ndim = static_cast<int>(shape.size());
    std::vector<HostView> views;
    for (const Array& a : c.arrays) views.emplace_back(a, mirrors_, ndim);
    std::vector<std::int64_t> index(shape.size());
    std::vector<double> values(views.size());
    return check_output(
        c.out.to_vector<float>(),
        [&](std::int64_t flat) {
          for (int k = ndim - 1; k >= 0; --k) {
            const std::int64_t extent = shape[static_cast<std::size_t>(k)];
            index[static_cast<std::size_t>(k)] = flat % extent;
            flat /= extent;
          }
          for (std::size_t i = 0; i < views.size(); ++i) values[i] = views[i].at(index);
          return c.reference(values.data());
        },
        c.tolerance);
  }

  const LayoutInputs& in_;
  const CaseRunner& run_case_;
  std::int64_t big_ = 0;
  Array x_;
  std::vector<float> small_host_;
  Array small_;
  std::vector<Mirror> mirrors_;
};

}  // namespace

void run_layout_cases(const LayoutInputs& inputs, const CaseRunner& run_case) {
  LayoutBench bench(inputs, run_case);
  bench.run();
}

}  // namespace bench
