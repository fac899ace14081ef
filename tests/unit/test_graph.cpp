// jitvec::capture without a GPU: the capture's rules, applied to planned calls before anything
// is launched (engine/graph_capture.hpp), and the errors of capture() itself. The rules are
// checked here with a capture state made by hand around a stream handle that is never used;
// tests/gpu/test_gpu_graph.cpp captures and replays for real.
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "engine/graph_capture.hpp"
#include "support.hpp"
#include "test_ufuncs.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

// A handle that only the capture state compares against; no driver call ever sees it.
CUstream_st* fake_stream(std::uintptr_t n) { return reinterpret_cast<CUstream_st*>(n); }

// A device array that is never touched (the calls below stop at the capture's rules).
Array fake_device_array(std::int64_t n, int device = 0) {
  static std::vector<float> storage(4096);
  return Array::wrap(storage.data(), DType::float32, {n}, {}, Memory::device, device);
}

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Ufunc add_ufunc() {
  define_test_ufuncs(shared_engine());
  return shared_engine().ufunc("add");
}

}  // namespace

TEST_CASE("capture without a GPU says there is none", "[graph]") {
  if (gpu_usable()) JITVEC_SKIP("a GPU is usable here; this checks machines without one");
  try {
    capture(Stream(fake_stream(0x100)), [] {});
    FAIL("expected TargetError");
  } catch (const TargetError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Matchers::Contains("jitvec::capture records GPU work, and this machine has "
                                         "no usable GPU") &&
                   Catch::Matchers::Contains("target(Target::cpu)"));
  }
  CHECK(engine::active_capture() == nullptr);
}

TEST_CASE("capture refuses the null stream, an empty body and nesting", "[graph]") {
  CHECK_THROWS_AS(capture(Stream(), [] {}), ArgumentError);
  CHECK_THAT(error_of([] { capture(Stream(), [] {}); }),
             Catch::Matchers::Contains("the null stream cannot be captured"));
  CHECK_THAT(error_of([] { capture(Stream(fake_stream(0x100)), std::function<void()>()); }),
             Catch::Matchers::Contains("empty function"));
  engine::ActiveCapture outer;
  outer.stream = fake_stream(0x100);
  {
    engine::CaptureScope scope(outer);
    CHECK_THAT(error_of([] { capture(Stream(fake_stream(0x200)), [] {}); }),
               Catch::Matchers::Contains("captures do not nest"));
  }
  CHECK(engine::active_capture() == nullptr);
}

TEST_CASE("an empty Graph says where to get one", "[graph]") {
  const Graph empty;
  CHECK_FALSE(empty);
  CHECK_THAT(error_of([&] { empty.replay(); }),
             Catch::Matchers::Contains("this Graph is empty: get one from jitvec::capture"));
}

TEST_CASE("calls inside a capture follow its rules", "[graph]") {
  Ufunc add = add_ufunc();
  engine::ActiveCapture state;
  state.stream = fake_stream(0x100);
  state.device = 0;
  const Array x = fake_device_array(16), y = fake_device_array(16), out = fake_device_array(16);
  std::vector<float> host(16, 1.0f);
  engine::CaptureScope scope(state);

  SECTION("host targets would run once, now: refused") {
    for (Target t : {Target::cpu, Target::parallel}) {
      try {
        add(x, y, jitvec::out(out), target(t));
        FAIL("expected TargetError");
      } catch (const TargetError& e) {
        CHECK_THAT(std::string(e.what()),
                   Catch::Matchers::Contains("ufunc 'add' was called on target") &&
                       Catch::Matchers::Contains("a capture records GPU work only"));
      }
    }
  }
  SECTION("host arrays (synchronous copies) are refused, inputs and out=") {
    CHECK_THAT(error_of([&] { add(host, y, jitvec::out(out), target(Target::cuda)); }),
               Catch::Matchers::Contains("argument 1 is a host array") &&
                   Catch::Matchers::Contains("copy it with to_device before the capture"));
    CHECK_THAT(error_of([&] { add(x, y, jitvec::out(from_vector(host)), target(Target::cuda)); }),
               Catch::Matchers::Contains("out= is a host array"));
  }
  SECTION("a call without out= would allocate: refused") {
    try {
      add(x, y, target(Target::cuda));
      FAIL("expected ArgumentError");
    } catch (const ArgumentError& e) {
      CHECK_THAT(std::string(e.what()),
                 Catch::Matchers::Contains("ufunc 'add' inside jitvec::capture has no out=") &&
                     Catch::Matchers::Contains("allocate the result before the capture"));
    }
  }
  SECTION("another stream, or another device, is refused") {
    CHECK_THAT(error_of([&] {
                 add(x, y, jitvec::out(out), on(Stream(fake_stream(0x300))), target(Target::cuda));
               }),
               Catch::Matchers::Contains("calls inside a capture run on the capturing stream"));
    CHECK_THAT(error_of([&] {
                 add(x, fake_device_array(16, 1), jitvec::out(out), target(Target::cuda));
               }),
               Catch::Matchers::Contains("argument 2 is on cuda:1, but the capture records cuda:0"));
  }
  SECTION("device allocations on the capturing stream or the null stream are refused") {
    CHECK_THROWS_AS(engine::refuse_allocation_in_capture(state.stream, 4096), ArgumentError);
    CHECK_THAT(error_of([&] { engine::refuse_allocation_in_capture(nullptr, 4096); }),
               Catch::Matchers::Contains("a device allocation of 4096 bytes on the null stream "
                                         "inside jitvec::capture"));
    CHECK_NOTHROW(engine::refuse_allocation_in_capture(fake_stream(0x300), 4096));
  }
  CHECK(state.calls == 0);
  CHECK(state.held.empty());
}

TEST_CASE("a call that fits a capture holds its arrays for the Graph", "[graph]") {
  // Past the rules the call goes on to launch, which on a machine without a GPU fails at the
  // driver: by then the capture has recorded it. (With a GPU this would launch on a stream that
  // does not exist; tests/gpu/test_gpu_graph.cpp checks the holding there.)
  if (gpu_usable()) JITVEC_SKIP("a GPU is usable here; test_gpu_graph.cpp covers this");
  Ufunc add = add_ufunc();
  engine::ActiveCapture state;
  state.stream = fake_stream(0x100);
  const Array x = fake_device_array(16), out = fake_device_array(16);
  {
    engine::CaptureScope scope(state);
    CHECK_THROWS_AS(add(x, 2.0f, jitvec::out(out), target(Target::cuda)), CudaError);
  }
  CHECK(state.calls == 1);
  REQUIRE(state.held.size() == 2);  // the array input and out=; the scalar is a value
  CHECK(state.held[0].data() == x.data());
  CHECK(state.held[1].data() == out.data());
  CHECK(engine::active_capture() == nullptr);
}
