// DLPack on the CPU: a producer written here (a "library" that owns buffers and hands them out
// as DLManagedTensor / DLManagedTensorVersioned, counting its deleter's calls) exchanges
// arrays with jitvec both ways: layouts (strided, negative strides, 0-d, byte_offset), every
// dtype, ownership (the deleter runs exactly once, with the last Array), lifetime after the
// producer drops its own handle, devices mapped without a GPU, and bad input, which must take
// nothing over (the deleter count stays 0).
#include <jitvec/dlpack.hpp>

#include <atomic>
#include <cstring>
#include <memory>

#include "catch.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

std::atomic<int> deleter_calls{0};

// The producer library's storage: a buffer whose lifetime the test can watch.
struct Buffer {
  explicit Buffer(std::size_t bytes) : words((bytes + 7) / 8 + 1) {}
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(words.data()); }
  std::vector<std::uint64_t> words;  // 8-byte aligned
};

// What the producer hands out: the tensor and its context (which shares the buffer).
template <class Managed>
struct ProducerContext {
  std::shared_ptr<Buffer> buffer;
  std::vector<std::int64_t> shape, strides;
  Managed managed{};
  static void deleter(Managed* self) {
    deleter_calls++;
    delete static_cast<ProducerContext*>(self->manager_ctx);
  }
};

struct TensorSpec {
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // empty: NULL strides
  std::uint64_t byte_offset = 0;
  std::size_t element_offset = 0;     // data points this many elements into the buffer
  DLDevice device{kDLCPU, 0};
};

// A tensor-like handle of the producer library (think torch::Tensor): owns a buffer share.
class ProducerTensor {
 public:
  ProducerTensor(std::size_t bytes) : buffer_(std::make_shared<Buffer>(bytes)) {}
  Buffer& buffer() { return *buffer_; }
  std::weak_ptr<Buffer> watch() const { return buffer_; }

  template <class Managed = DLManagedTensor>
  Managed* export_tensor(const TensorSpec& spec) {
    auto* ctx = new ProducerContext<Managed>;
    ctx->buffer = buffer_;
    ctx->shape = spec.shape;
    ctx->strides = spec.strides;
    DLTensor& t = ctx->managed.dl_tensor;
    t.data = buffer_->bytes() + spec.element_offset * (spec.dtype.bits / 8);
    t.device = spec.device;
    t.ndim = static_cast<int>(spec.shape.size());
    t.dtype = spec.dtype;
    t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
    t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
    t.byte_offset = spec.byte_offset;
    ctx->managed.manager_ctx = ctx;
    ctx->managed.deleter = &ProducerContext<Managed>::deleter;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
      ctx->managed.version = DLPackVersion{1, 0};
      ctx->managed.flags = 0;
    }
    return &ctx->managed;
  }

 private:
  std::shared_ptr<Buffer> buffer_;
};

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const ArgumentError& e) {
    return e.what();
  }
  return "no error";
}

float* floats(ProducerTensor& p) { return reinterpret_cast<float*>(p.buffer().bytes()); }

void fill_random(float* p, std::size_t n) {
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (std::size_t i = 0; i < n; ++i) p[i] = dist(rng());
}

}  // namespace

TEST_CASE("from_dlpack: a contiguous tensor is viewed in place and owned once", "[dlpack]") {
  deleter_calls = 0;
  ProducerTensor producer(12 * sizeof(float));
  fill_random(floats(producer), 12);
  DLManagedTensor* t = producer.export_tensor(TensorSpec{{kDLFloat, 32, 1}, {3, 4}, {}});
  {
    Array a = Array::from_dlpack(t);
    CHECK(a.data() == floats(producer));  // zero-copy
    CHECK(a.dtype() == DType::float32);
    CHECK(a.shape() == Shape{3, 4});
    CHECK(a.strides() == Strides{4, 1});  // NULL strides: C-contiguous
    CHECK(!a.is_device());
    CHECK(a.owns_memory());
    Array copy = a;
    Array view = a.transpose().slice(0, 1, 3);
    a = Array();
    copy = Array();
    CHECK(deleter_calls == 0);  // the view still shares the tensor
    std::vector<float> seen = view.to_vector<float>();  // view[i][j] = t[j][1 + i]
    REQUIRE(seen.size() == 6);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) CHECK(seen[i * 3 + j] == floats(producer)[j * 4 + 1 + i]);
    }
  }
  CHECK(deleter_calls == 1);
}

TEST_CASE("from_dlpack: strided, negative strides and byte_offset feed a ufunc", "[dlpack]") {
  deleter_calls = 0;
  define_test_ufuncs(shared_engine());
  Ufunc add = shared_engine().ufunc("add");
  const std::int64_t rows = 5, cols = 7;
  ProducerTensor producer(rows * cols * sizeof(float) + 64);
  float* base = floats(producer);
  fill_random(base, rows * cols + 16);
  // x[i][j] = base[4 + (rows-1-i)*cols + 2*j]: rows reversed (a negative stride), every
  // other column, 16 bytes further in through byte_offset.
  const std::int64_t half = (cols + 1) / 2;
  TensorSpec spec{{kDLFloat, 32, 1}, {rows, half}, {-cols, 2}, 16, (rows - 1) * cols};
  // y: the transpose of a contiguous (half, rows) block at the buffer's start.
  TensorSpec spec_y{{kDLFloat, 32, 1}, {rows, half}, {1, rows}, 0, 0};
  Array x = Array::from_dlpack(producer.export_tensor(spec));
  Array y = Array::from_dlpack(producer.export_tensor(spec_y));
  CHECK(x.strides() == Strides{-cols, 2});
  CHECK(x.data() == base + 4 + (rows - 1) * cols);
  Array out = Array::empty(DType::float32, {rows, half});
  float* o = out.data_as<float>();
  for (std::int64_t i = 0; i < rows * half; ++i) o[i] = std::nanf("");  // poison
  add(x, y, jitvec::out(out), target(Target::cpu));
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < half; ++j) {
      const double xv = base[4 + (rows - 1 - i) * cols + 2 * j];
      const double yv = base[i + j * rows];
      CHECK(o[i * half + j] == static_cast<float>(xv + yv));
    }
  }
  x = Array();
  CHECK(deleter_calls == 1);
  y = Array();
  CHECK(deleter_calls == 2);
}

TEST_CASE("from_dlpack: 0-d tensors and empty tensors", "[dlpack]") {
  deleter_calls = 0;
  ProducerTensor producer(8);
  floats(producer)[0] = 2.5f;
  Array scalar = Array::from_dlpack(producer.export_tensor(TensorSpec{{kDLFloat, 32, 1}, {}, {}}));
  CHECK(scalar.ndim() == 0);
  CHECK(scalar.size() == 1);
  CHECK(scalar.to_vector<float>() == std::vector<float>{2.5f});
  // An empty tensor may have a null data pointer.
  DLManagedTensor* empty = producer.export_tensor(TensorSpec{{kDLFloat, 64, 1}, {0, 3}, {}});
  empty->dl_tensor.data = nullptr;
  Array e = Array::from_dlpack(empty);
  CHECK(e.shape() == Shape{0, 3});
  CHECK(e.dtype() == DType::float64);
  scalar = Array();
  e = Array();
  CHECK(deleter_calls == 2);
}

TEST_CASE("DLPack dtypes map both ways for every jitvec dtype", "[dlpack]") {
  struct Row {
    DType dtype;
    DLDataType dl;
  };
  // DLPack's codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6.
  const Row rows[] = {
      {DType::bool_, {6, 8, 1}},    {DType::int8, {0, 8, 1}},     {DType::int16, {0, 16, 1}},
      {DType::int32, {0, 32, 1}},   {DType::int64, {0, 64, 1}},   {DType::uint8, {1, 8, 1}},
      {DType::uint16, {1, 16, 1}},  {DType::uint32, {1, 32, 1}},  {DType::uint64, {1, 64, 1}},
      {DType::float32, {2, 32, 1}}, {DType::float64, {2, 64, 1}}, {DType::float16, {2, 16, 1}},
      {DType::bfloat16, {4, 16, 1}}, {DType::complex64, {5, 64, 1}}, {DType::complex128, {5, 128, 1}},
  };
  static_assert(sizeof(rows) / sizeof(rows[0]) == kDTypeCount, "a row for every dtype");
  deleter_calls = 0;
  for (const Row& row : rows) {
    INFO(dtype_name(row.dtype));
    const DLDataType dl = to_dlpack_dtype(row.dtype);
    CHECK(dl.code == row.dl.code);
    CHECK(dl.bits == row.dl.bits);
    CHECK(dl.lanes == 1);
    CHECK(from_dlpack_dtype(row.dl) == row.dtype);

    // Producer -> jitvec -> DLPack -> jitvec: same bytes, dtype, memory.
    ProducerTensor producer(4 * 16);
    for (int i = 0; i < 4 * 16; ++i) producer.buffer().bytes()[i] = static_cast<unsigned char>(rng()() & 1);
    Array a = Array::from_dlpack(producer.export_tensor(TensorSpec{row.dl, {4}, {}}));
    CHECK(a.dtype() == row.dtype);
    DLManagedTensor* back = a.to_dlpack();
    CHECK(back->dl_tensor.dtype.code == row.dl.code);
    CHECK(back->dl_tensor.dtype.bits == row.dl.bits);
    Array b = Array::from_dlpack(back);
    CHECK(b.data() == producer.buffer().bytes());
    CHECK(b.dtype() == row.dtype);
    Array host = b.to_host();
    CHECK(std::memcmp(host.data(), producer.buffer().bytes(), 4 * dtype_size(row.dtype)) == 0);
  }
  CHECK(deleter_calls == kDTypeCount);
}

TEST_CASE("to_dlpack: the consumer's tensor outlives every Array", "[dlpack]") {
  deleter_calls = 0;
  ProducerTensor producer(6 * sizeof(float));
  fill_random(floats(producer), 6);
  Array a = Array::from_dlpack(producer.export_tensor(TensorSpec{{kDLFloat, 32, 1}, {2, 3}, {}}));
  Array reversed = a.slice(1, 2, -4, -1);  // columns reversed: stride -1
  REQUIRE(reversed.strides() == Strides{3, -1});

  DLManagedTensor* t = reversed.to_dlpack();
  DLManagedTensorVersioned* v = a.to_dlpack_versioned();
  a = Array();
  reversed = Array();
  CHECK(deleter_calls == 0);  // both exports hold the producer's tensor

  CHECK(t->dl_tensor.data == floats(producer) + 2);
  CHECK(t->dl_tensor.byte_offset == 0);
  CHECK(t->dl_tensor.device.device_type == kDLCPU);
  REQUIRE(t->dl_tensor.ndim == 2);
  CHECK(t->dl_tensor.shape[0] == 2);
  CHECK(t->dl_tensor.shape[1] == 3);
  REQUIRE(t->dl_tensor.strides != nullptr);
  CHECK(t->dl_tensor.strides[0] == 3);
  CHECK(t->dl_tensor.strides[1] == -1);
  CHECK(v->version.major == 1);
  CHECK(v->version.minor == 0);
  CHECK(v->flags == 0);
  CHECK(v->dl_tensor.strides[0] == 3);
  CHECK(v->dl_tensor.strides[1] == 1);

  t->deleter(t);
  CHECK(deleter_calls == 0);
  v->deleter(v);
  CHECK(deleter_calls == 1);
}

TEST_CASE("from_dlpack: the Array keeps memory alive after the producer drops its handle",
          "[dlpack]") {
  deleter_calls = 0;
  std::weak_ptr<Buffer> watch;
  Array a;
  {
    ProducerTensor producer(100 * sizeof(float));
    for (int i = 0; i < 100; ++i) floats(producer)[i] = static_cast<float>(i) * 0.5f;
    watch = producer.watch();
    a = Array::from_dlpack(producer.export_tensor<DLManagedTensorVersioned>(
        TensorSpec{{kDLFloat, 32, 1}, {10, 10}, {}}));
  }  // the producer's own handle is gone
  CHECK(!watch.expired());
  const std::vector<float> v = a.to_vector<float>();
  for (int i = 0; i < 100; ++i) CHECK(v[i] == static_cast<float>(i) * 0.5f);
  CHECK(deleter_calls == 0);
  a = Array();
  CHECK(deleter_calls == 1);
  CHECK(watch.expired());
}

TEST_CASE("from_dlpack: device types map to host and device memory", "[dlpack]") {
  deleter_calls = 0;
  ProducerTensor producer(64);
  struct Case {
    DLDevice device;
    Memory memory;
    int ordinal;
  };
  const Case cases[] = {{{kDLCPU, 0}, Memory::host, 0},
                        {{kDLCUDAHost, 0}, Memory::host, 0},
                        {{kDLCUDA, 1}, Memory::device, 1},
                        {{kDLCUDAManaged, 0}, Memory::device, 0}};
  for (const Case& c : cases) {
    TensorSpec spec{{kDLFloat, 32, 1}, {4}, {}};
    spec.device = c.device;
    Array a = Array::from_dlpack(producer.export_tensor(spec));  // a view: no GPU needed
    CHECK(a.memory() == c.memory);
    CHECK(a.device() == c.ordinal);
    DLManagedTensor* back = a.to_dlpack();
    CHECK(back->dl_tensor.device.device_type == (c.memory == Memory::host ? kDLCPU : kDLCUDA));
    CHECK(back->dl_tensor.device.device_id == c.ordinal);
    back->deleter(back);
  }
  CHECK(deleter_calls == 4);
}

TEST_CASE("from_dlpack: bad input is an error and takes nothing over", "[dlpack][errors]") {
  deleter_calls = 0;
  ProducerTensor producer(256);
  auto expect = [&](TensorSpec spec, const std::string& text, auto&& tweak) {
    DLManagedTensor* t = producer.export_tensor(spec);
    tweak(t);
    CHECK_THAT(error_of([&] { Array::from_dlpack(t); }), Catch::Matchers::Contains(text));
    CHECK(deleter_calls == 0);  // the caller still owns it...
    t->deleter(t);              // ...and releases it
    deleter_calls = 0;
  };
  auto none = [](DLManagedTensor*) {};
  const TensorSpec plain{{kDLFloat, 32, 1}, {4}, {}};

  CHECK_THAT(error_of([] { Array::from_dlpack(static_cast<DLManagedTensor*>(nullptr)); }),
             Catch::Matchers::Contains("null DLManagedTensor pointer"));
  CHECK_THAT(
      error_of([] { Array::from_dlpack(static_cast<DLManagedTensorVersioned*>(nullptr)); }),
      Catch::Matchers::Contains("null DLManagedTensorVersioned pointer"));

  TensorSpec rocm = plain;
  rocm.device = DLDevice{kDLROCM, 0};
  expect(rocm, "lives on kDLROCM (device_id 0)", none);
  TensorSpec opencl = plain;
  opencl.device = DLDevice{kDLOpenCL, 2};
  expect(opencl, "lives on kDLOpenCL (device_id 2)", none);

  expect(TensorSpec{{kDLFloat, 8, 1}, {4}, {}}, "no dtype for DLPack's float8", none);
  expect(TensorSpec{{kDLBfloat, 32, 1}, {4}, {}}, "no dtype for DLPack's bfloat32", none);
  expect(TensorSpec{{kDLComplex, 32, 1}, {4}, {}}, "no dtype for DLPack's complex32", none);
  expect(TensorSpec{{kDLFloat, 32, 4}, {4}, {}}, "float32 x 4 lanes", none);
  expect(TensorSpec{{kDLPackBoolCode, 32, 1}, {4}, {}}, "bool32", none);
  expect(TensorSpec{{kDLInt, 24, 1}, {4}, {}}, "int24", none);

  expect(plain, "null data pointer for a float32 tensor of shape (4,)",
         [](DLManagedTensor* t) { t->dl_tensor.data = nullptr; });
  expect(plain, "1-d tensor with a null shape pointer",
         [](DLManagedTensor* t) { t->dl_tensor.shape = nullptr; });
  expect(plain, "tensor with ndim -1", [](DLManagedTensor* t) { t->dl_tensor.ndim = -1; });
  expect(TensorSpec{{kDLFloat, 32, 1}, {2, -3}, {}}, "negative dimension in shape (2, -3)", none);
  expect(TensorSpec{{kDLFloat, 32, 1}, {4}, {}, 2}, "byte_offset 2", none);
  expect(TensorSpec{{kDLFloat, 32, 1}, {4}, {}, 2}, "not aligned to 4 bytes", none);
  TensorSpec cuda_negative = plain;
  cuda_negative.device = DLDevice{kDLCUDA, -1};
  expect(cuda_negative, "kDLCUDA tensor with device_id -1", none);

  // Versioned: an unknown major version, and a read-only tensor where writing is asked for.
  DLManagedTensorVersioned* v = producer.export_tensor<DLManagedTensorVersioned>(plain);
  v->version = DLPackVersion{2, 0};
  CHECK_THAT(error_of([&] { Array::from_dlpack(v); }),
             Catch::Matchers::Contains("DLPack version 2.0; jitvec reads major version 1"));
  v->version = DLPackVersion{1, 3};
  v->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK_THAT(error_of([&] { Array::from_dlpack(v, /*writable=*/true); }),
             Catch::Matchers::Contains("read-only"));
  CHECK(deleter_calls == 0);
  Array read_only_input = Array::from_dlpack(v);  // reading it is fine
  CHECK(read_only_input.size() == 4);
  read_only_input = Array();
  CHECK(deleter_calls == 1);
}

TEST_CASE("from_dlpack: a valid byte_offset moves the data pointer", "[dlpack]") {
  deleter_calls = 0;
  ProducerTensor producer(16 * sizeof(double));
  double* d = reinterpret_cast<double*>(producer.buffer().bytes());
  for (int i = 0; i < 16; ++i) d[i] = i * 1.25;
  Array a = Array::from_dlpack(
      producer.export_tensor(TensorSpec{{kDLFloat, 64, 1}, {2, 2}, {8, 3}, 3 * sizeof(double)}));
  CHECK(a.data() == d + 3);
  CHECK(a.to_vector<double>() == std::vector<double>{d[3], d[6], d[11], d[14]});
}
