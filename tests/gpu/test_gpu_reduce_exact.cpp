// Issue 25 on the cuda target, with device arrays and with host arrays: reduce's initial and
// identity exact in int64, uint64, complex and bool accumulators (the kernels read init_bits of
// the accumulator type), and empty out= arrays with zero strides. Skips, saying why, without a GPU.
#include "../unit/reduce_exact_support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("GPU reduce: initial and identity exact in int64, uint64, complex and bool accumulators",
          "[gpu][reduce][exact]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_reduce_exact_initial(Where{Target::cuda, true});
  run_reduce_exact_initial(Where{Target::cuda, false});
}

TEST_CASE("GPU: an empty out= (zero strides) is no broadcast view: calls, reduce, gufuncs", "[gpu][reduce][out]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_empty_out(Where{Target::cuda, true});
  run_empty_out(Where{Target::cuda, false});
}
