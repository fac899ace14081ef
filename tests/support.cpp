#include "support.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <cstdlib>
#include <limits>

#include "cuda/device.hpp"
#include "cuda/driver.hpp"

extern char** environ;

namespace jitvec_test {

using namespace jitvec;

ChildResult run_tool(const std::string& tool, const std::vector<std::string>& args,
                     const std::map<std::string, const char*>& changes) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (changes.count(text.substr(0, text.find('='))) == 0) environment.push_back(text);
  }
  for (const auto& [name, value] : changes) {
    if (value != nullptr) environment.push_back(name + "=" + value);
  }
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const std::string program = std::string(JITVEC_TOOLS_DIR) + "/" + tool;
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed: " + std::string(std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error("starting " + program + ": " + std::strerror(spawned));
  }
  ChildResult result;
  char buffer[512];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) {
    result.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
    throw std::runtime_error(program + " did not exit normally; its output:\n" + result.output);
  }
  result.exit_status = WEXITSTATUS(status);
  return result;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "jitvec-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}
TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

Engine& shared_engine() {
  static TempDir cache_dir;
  static Engine engine([] {
    EngineOptions options;
    options.cache.dir = cache_dir.path();
    options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
    options.threads = 3;  // more threads than CI's cores: exercises the chunking
    return options;
  }());
  return engine;
}

bool gpu_usable() {
  static const bool usable = cuda::device_count() > 0;
  return usable;
}

std::string gpu_skip_reason() {
  try {
    cuda::driver();
    return "skipped: no CUDA device found";
  } catch (const std::exception& e) {
    return std::string("skipped (no GPU): ") + e.what();
  }
}

std::uint64_t rng_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("JITVEC_TEST_SEED")) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return seed;
}

std::mt19937_64& rng() {
  static std::mt19937_64 generator(rng_seed());
  return generator;
}

template <class T> static double load_t(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}
template <class T> static void store_t(double value, void* p) {
  const T v = static_cast<T>(value);
  std::memcpy(p, &v, sizeof(T));
}

double load_as_double(DType t, const void* p) {
  switch (t) {
    case DType::bool_: return load_t<bool>(p);
    case DType::int8: return load_t<std::int8_t>(p);
    case DType::int16: return load_t<std::int16_t>(p);
    case DType::int32: return load_t<std::int32_t>(p);
    case DType::int64: return load_t<std::int64_t>(p);
    case DType::uint8: return load_t<std::uint8_t>(p);
    case DType::uint16: return load_t<std::uint16_t>(p);
    case DType::uint32: return load_t<std::uint32_t>(p);
    case DType::uint64: return load_t<std::uint64_t>(p);
    case DType::float32: return load_t<float>(p);
    case DType::float64: return load_t<double>(p);
    case DType::float16: return detail::half_bits_to_float(static_cast<std::uint16_t>(load_t<std::uint16_t>(p)));
    case DType::bfloat16: return detail::bfloat16_bits_to_float(static_cast<std::uint16_t>(load_t<std::uint16_t>(p)));
    case DType::complex64: return load_t<float>(p);    // the real part
    case DType::complex128: return load_t<double>(p);  // the real part
  }
  return 0;
}

void store_from_double(DType t, double value, void* p) {
  switch (t) {
    case DType::bool_: store_t<bool>(value != 0, p); break;
    case DType::int8: store_t<std::int8_t>(value, p); break;
    case DType::int16: store_t<std::int16_t>(value, p); break;
    case DType::int32: store_t<std::int32_t>(value, p); break;
    case DType::int64: store_t<std::int64_t>(value, p); break;
    case DType::uint8: store_t<std::uint8_t>(value, p); break;
    case DType::uint16: store_t<std::uint16_t>(value, p); break;
    case DType::uint32: store_t<std::uint32_t>(value, p); break;
    case DType::uint64: store_t<std::uint64_t>(value, p); break;
    case DType::float32: store_t<float>(value, p); break;
    case DType::float64: store_t<double>(value, p); break;
    case DType::float16: store_t<std::uint16_t>(detail::double_to_half_bits(value), p); break;
    case DType::bfloat16: store_t<std::uint16_t>(detail::double_to_bfloat16_bits(value), p); break;
    case DType::complex64: {  // a real value: the imaginary part is zero
      const float parts[2] = {static_cast<float>(value), 0.0f};
      std::memcpy(p, parts, sizeof parts);
      break;
    }
    case DType::complex128: {
      const double parts[2] = {value, 0.0};
      std::memcpy(p, parts, sizeof parts);
      break;
    }
  }
}

namespace {

constexpr unsigned char kPoisonByte = 0xA5;

double random_value(DType t, double lo, double hi) {
  if (t == DType::bool_) return std::uniform_int_distribution<int>(0, 1)(rng());
  if (dtype_kind(t) == DTypeKind::floating || dtype_kind(t) == DTypeKind::complex) {
    return std::uniform_real_distribution<double>(lo, hi)(rng());
  }
  return static_cast<double>(std::uniform_int_distribution<long long>(
      static_cast<long long>(lo), static_cast<long long>(hi))(rng()));
}

}  // namespace

TestArray TestArray::random_view(DType dtype, std::int64_t base_elements, std::int64_t offset,
                                 Shape shape, Strides strides, double lo, double hi) {
  TestArray a;
  a.dtype_ = dtype;
  a.base_elements_ = base_elements;
  a.offset_ = offset;
  a.shape_ = std::move(shape);
  a.strides_ = std::move(strides);
  const std::size_t item = dtype_size(dtype);
  a.base_ = std::make_shared<std::vector<std::uint64_t>>((base_elements * item + 7) / 8 + 1);
  auto* bytes = reinterpret_cast<unsigned char*>(a.base_->data());
  for (std::int64_t i = 0; i < base_elements; ++i) {
    store_from_double(dtype, random_value(dtype, lo, hi), bytes + i * item);
  }
  return a;
}

TestArray TestArray::random(DType dtype, Shape shape, double lo, double hi) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return random_view(dtype, n, 0, std::move(shape), std::move(strides), lo, hi);
}

TestArray TestArray::poisoned_view(DType dtype, std::int64_t base_elements, std::int64_t offset,
                                   Shape shape, Strides strides) {
  TestArray a = random_view(dtype, 0, offset, std::move(shape), std::move(strides), 0, 0);
  a.base_elements_ = base_elements;
  a.base_ = std::make_shared<std::vector<std::uint64_t>>((base_elements * dtype_size(dtype) + 7) / 8 + 1);
  std::memset(a.base_->data(), kPoisonByte, a.base_->size() * 8);
  return a;
}

Array TestArray::host_view() {
  auto* bytes = reinterpret_cast<unsigned char*>(base_->data());
  return Array::wrap(bytes + offset_ * dtype_size(dtype_), dtype_, shape_, strides_, Memory::host);
}

Array TestArray::device_view() {
  const std::size_t bytes = static_cast<std::size_t>(base_elements_) * dtype_size(dtype_);
  if (!have_device_) {
    Array host = Array::wrap(base_->data(), DType::uint8, Shape{static_cast<std::int64_t>(bytes)});
    device_base_ = host.to_device();
    have_device_ = true;
  }
  auto* dev = static_cast<unsigned char*>(device_base_.data());
  return Array::wrap(dev + offset_ * dtype_size(dtype_), dtype_, shape_, strides_, Memory::device);
}

void TestArray::fetch_from_device() {
  Array back = device_base_.to_host();
  std::memcpy(base_->data(), back.data(), static_cast<std::size_t>(back.size()));
}

double TestArray::at(const std::vector<std::int64_t>& index) const {
  std::int64_t e = offset_;
  for (std::size_t d = 0; d < index.size(); ++d) e += index[d] * strides_[d];
  return load_as_double(dtype_, reinterpret_cast<const unsigned char*>(base_->data()) +
                                    e * dtype_size(dtype_));
}

bool TestArray::base_poisoned(std::int64_t i) const {
  const auto* p = reinterpret_cast<const unsigned char*>(base_->data()) + i * dtype_size(dtype_);
  for (std::size_t b = 0; b < dtype_size(dtype_); ++b) {
    if (p[b] != kPoisonByte) return false;
  }
  return true;
}

std::vector<bool> TestArray::covered() const {
  std::vector<bool> covered(static_cast<std::size_t>(base_elements_), false);
  for_each_index(shape_, [&](const std::vector<std::int64_t>& idx) {
    std::int64_t e = offset_;
    for (std::size_t d = 0; d < idx.size(); ++d) e += idx[d] * strides_[d];
    covered[static_cast<std::size_t>(e)] = true;
  });
  return covered;
}

std::vector<std::int64_t> broadcast_index(const std::vector<std::int64_t>& idx, const Shape& shape) {
  std::vector<std::int64_t> out(shape.size());
  const std::size_t lead = idx.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) out[d] = shape[d] == 1 ? 0 : idx[lead + d];
  return out;
}

double array_at(const Array& a, const std::vector<std::int64_t>& idx) {
  std::int64_t e = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) e += idx[d] * a.strides()[d];
  return load_as_double(a.dtype(), static_cast<const unsigned char*>(a.data()) +
                                       e * static_cast<std::int64_t>(dtype_size(a.dtype())));
}

}  // namespace jitvec_test
