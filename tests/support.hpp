// tests/support.hpp: what the test files share.
//
// - TempDir: a fresh folder, removed with its contents at scope exit.
// - shared_engine(): one Engine for the whole test process, whose disk cache lives in a
//   temporary folder of its own (so tests never touch the user's cache), with the test ufuncs
//   defined once.
// - gpu_usable()/gpu_skip_reason(): whether GPU tests can run here.
// - run_tool(): starts a program of tests/tools with arguments and environment changes, and
//   returns its exit status and output.
// - TestArray: host data in a base buffer (64-bit aligned) plus a view (offset, shape,
//   strides), from which it makes the jitvec::Array view in host memory or, with the same
//   offset and strides, in device memory; element(i) reads the view as double for references.
#pragma once

#include <jitvec/jitvec.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace jitvec_test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct ChildResult {
  int exit_status = -1;
  std::string output;  // stdout and stderr together
};

/// Runs tests/tools/<tool> with `args`, this process's environment changed by `changes` (a
/// value of nullptr unsets the variable), and returns its exit status and output. Throws
/// std::runtime_error when it cannot be started or does not exit normally.
ChildResult run_tool(const std::string& tool, const std::vector<std::string>& args,
                     const std::map<std::string, const char*>& changes);

/// The process-wide engine used by the ufunc tests (cache in a private temp folder).
jitvec::Engine& shared_engine();

bool gpu_usable();
std::string gpu_skip_reason();

/// A fresh random generator, seeded from the clock; the seed is logged by Catch on failure.
std::mt19937_64& rng();
std::uint64_t rng_seed();

/// Reads element `index` (flat, into the base buffer) of `bytes` as double.
double load_as_double(jitvec::DType t, const void* element);
/// Stores `value` converted to `t` at `element`.
void store_from_double(jitvec::DType t, double value, void* element);

class TestArray {
 public:
  /// A contiguous array of `shape` filled with random values suited to `dtype` in [lo, hi].
  static TestArray random(jitvec::DType dtype, jitvec::Shape shape, double lo, double hi);
  /// A buffer of `base_elements` random elements viewed with (offset, shape, strides).
  static TestArray random_view(jitvec::DType dtype, std::int64_t base_elements,
                               std::int64_t offset, jitvec::Shape shape, jitvec::Strides strides,
                               double lo, double hi);
  /// An output buffer filled with a poison pattern, viewed with (offset, shape, strides).
  static TestArray poisoned_view(jitvec::DType dtype, std::int64_t base_elements,
                                 std::int64_t offset, jitvec::Shape shape, jitvec::Strides strides);

  jitvec::Array host_view();
  /// The same view over a device copy of the whole base buffer (made on first use).
  jitvec::Array device_view();
  /// Copies the device buffer back into the host buffer.
  void fetch_from_device();

  jitvec::DType dtype() const { return dtype_; }
  const jitvec::Shape& shape() const { return shape_; }
  const jitvec::Strides& strides() const { return strides_; }
  /// Element at a multi-index of the view, as double.
  double at(const std::vector<std::int64_t>& index) const;
  /// Whether base element `i` still holds the poison pattern.
  bool base_poisoned(std::int64_t i) const;
  std::int64_t base_elements() const { return base_elements_; }
  /// Base elements the view covers.
  std::vector<bool> covered() const;

 private:
  jitvec::DType dtype_ = jitvec::DType::float32;
  std::int64_t base_elements_ = 0;
  std::int64_t offset_ = 0;
  jitvec::Shape shape_;
  jitvec::Strides strides_;
  std::shared_ptr<std::vector<std::uint64_t>> base_;  // 8-byte aligned storage
  jitvec::Array device_base_;
  bool have_device_ = false;
};

/// Calls f(multi_index) for every index of `shape` in C order.
template <class F> void for_each_index(const jitvec::Shape& shape, F f) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    f(idx);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

/// The multi-index `idx` of a broadcast shape, as seen by an operand of `shape`.
std::vector<std::int64_t> broadcast_index(const std::vector<std::int64_t>& idx,
                                          const jitvec::Shape& shape);

/// Reads element `idx` (of the view's own shape) from any host Array, as double.
double array_at(const jitvec::Array& a, const std::vector<std::int64_t>& idx);

}  // namespace jitvec_test
