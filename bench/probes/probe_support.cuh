// bench/probes/probe_support.cuh: what the hand-written probe programs (kernel_probes.cu,
// scan_probes.cu) share: CHECK, which stops the program at the first failing CUDA runtime call
// with the call and its error, and Timer, the median of CUDA-event-timed launches after a
// warm-up.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorString(e_));                                              \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

struct Timer {
  cudaEvent_t a, b;
  Timer() { CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b)); }
  template <class F> double median_ms(F launch, int reps = 30) {
    for (int i = 0; i < 3; ++i) launch();
    CHECK(cudaGetLastError());
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};
