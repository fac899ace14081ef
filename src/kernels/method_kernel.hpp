// src/kernels/method_kernel.hpp: the kernel shells of the method modules (gufunc.hpp,
// ufunc_at.hpp), around one body that handles work item `t`.
//
// A method module has one GPU kernel and one host entry point, both over a range of work
// items, both taking one by-value parameter block `params_struct` named `p`:
//   GPU:  extern "C" __global__ void <gpu_name>(const <params_struct> p)
//         a grid-stride loop over t in [0, <count>)
//   host: JITVEC_EXPORT void <host_name>(const void* args, long long begin, long long end)
//         t over [begin, end) (the parallel target splits the range over threads), after a
//         static_assert that the generated struct has the size of the C++ one.
// `count` is a C++ expression over p (the number of work items).
#pragma once

#include <cstddef>
#include <string>

namespace jitvec::kernels {

struct MethodKernelText {
  const char* params_struct;
  std::size_t params_bytes;  ///< sizeof of the C++ declaration of the block
  const char* gpu_name;
  const char* host_name;
  std::string count;
  std::string body;
};

std::string method_gpu_kernel(const MethodKernelText& k);
std::string method_host_entry(const MethodKernelText& k);

}  // namespace jitvec::kernels
