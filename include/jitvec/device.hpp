// jitvec/device.hpp: the few GPU facts and controls a user needs besides ufunc calls.
//
// cuda_device_count() says how many GPUs jitvec can use (0 on machines without a driver; it
// never throws). synchronize() waits until everything queued on a stream has finished, e.g.
// before timing or before reading a device result through another API.
#pragma once

#include "jitvec/array.hpp"

namespace jitvec {

/// Number of CUDA devices usable here; 0 when there is no driver or no GPU.
int cuda_device_count() noexcept;

/// Waits for all work queued on `stream` (of `device`'s primary context) to finish.
void synchronize(Stream stream = {}, int device = 0);

}  // namespace jitvec
