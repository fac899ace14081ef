#!/usr/bin/env python3
"""bench/peers.py: jitvec_bench_gpu's cases run through jitvec's peers, on the same GPU.

Systems:
  numba             @vectorize([...], target='cuda'), the seed tutorial's code
  cupy-elementwise  cupy.ElementwiseKernel with the same scalar body as jitvec's definitions
  cupy-expr         a plain CuPy array expression, as a NumPy user would write it
  torch             PyTorch eager ops (TensorIterator), in the layout cases only; skipped with
                    a note (a "setup" record) where torch does not import

Cases and sizes are those of bench/bench_gpu.cpp (gaussian_pdf float32/float64 at 2^10..2^28,
polar_distance 2^26, zero_suppress int16 2^28, broadcast add 2^14 x 2^14 with a row and a column,
a transposed input, host arrays at 2^28, host cost of a call on 1024 elements, a fresh process's
start-up with an empty and a warm disk cache), on random inputs of the same distributions, and
issue 14's layout family (bench/bench_layouts.hpp: N-d broadcasts, stepped views, permutations, a
mix, small last dimensions; same names, shapes and views) through CuPy's ElementwiseKernel and
PyTorch, timed with cupy.cuda.Event / torch.cuda.Event, median of 20.
Kernels are timed with CUDA events (cupy.cuda.Event) around each call after warm-up, median of
30 (large) or 200 (small) calls, exactly as the C++ benchmark times jitvec. The ceilings (a
device-to-device copy of the same bytes, pinned host copies) are measured here too, in this
run, so every ratio compares with the machine as it is now. Every output is checked against a
NumPy float64 reference before its time is reported. One failing system (an import error, an
unsupported case) is recorded as an error and the rest goes on.

    python3 bench/peers.py [--json FILE] [--quick] [--skip-layouts]
                           [--systems numba,cupy-elementwise,cupy-expr,torch]
"""

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

# numba-cuda 0.30.4 refers to np.row_stack, which NumPy 2.5 removed: patch before importing it.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

MEAN = 0.25  # exactly representable, and not 0 and 1 (the C++ benchmark uses the same)
SIGMA = 1.5
THRESHOLD = 15
SQRT_2PI = math.sqrt(2.0 * math.pi)
LARGE_BYTES = 32 << 20
LARGE_REPS = (3, 30)  # (warm-up, timed)
SMALL_REPS = (20, 200)
FULL_CHECK_LIMIT = 1 << 24
SYSTEMS = ("numba", "cupy-elementwise", "cupy-expr", "torch")

# Tolerances of bench/checks.hpp.
TOL_GAUSS32 = (4e-6, 1e-7)
TOL_GAUSS64 = (1e-13, 1e-300)
TOL_POLAR32 = (1e-5, 2e-6)
TOL_EXACT = (0.0, 0.0)
TOL_ADD32 = (1.2e-7, 0.0)


def full_sizes():
    return dict(gaussian=[10, 16, 20, 24, 28], polar=26, zero_suppress=28, side=14, host=28,
                pinned=1 << 30, startup_cold=5, startup_warm=5, layouts_quick=False)


def quick_sizes():
    return dict(gaussian=[10, 16, 20, 22], polar=20, zero_suppress=22, side=10, host=22,
                pinned=1 << 26, startup_cold=1, startup_warm=1, layouts_quick=True)


# ---------------------------------------------------------------------------------------------
# Records (the fields of bench/results.hpp)

def record(case, system, n, dtype, **fields):
    r = dict(case=case, system=system, n=int(n), dtype=dtype, time_ms=0.0, bytes=0.0, gbps=0.0,
             ceiling_name="", ceiling_gbps=0.0, ceiling_time_ms=0.0, ratio=0.0, ratio_meaning="",
             verified=False, method="", error=None, extra={})
    r.update(fields)
    return r


def set_bandwidth(r, nbytes, ms, ceiling_name=None, ceiling_gbps=None):
    r["bytes"] = float(nbytes)
    r["time_ms"] = float(ms)
    r["gbps"] = nbytes / (ms * 1e-3) / 1e9 if ms > 0 else 0.0
    if ceiling_name is not None:
        r["ceiling_name"] = ceiling_name
        r["ceiling_gbps"] = float(ceiling_gbps)
        r["ratio"] = r["gbps"] / ceiling_gbps if ceiling_gbps else 0.0
        r["ratio_meaning"] = "gbps/ceiling_gbps"


def error_text(exc):
    return f"{type(exc).__name__}: {exc}".strip()


# ---------------------------------------------------------------------------------------------
# Timing and checking

class Gpu:
    """Timing helpers on CuPy's current (legacy null) stream, where Numba launches too."""

    def __init__(self, cp):
        self.cp = cp
        self.start = cp.cuda.Event()
        self.stop = cp.cuda.Event()

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def median_ms(self, work, reps, budget_s=3.0):
        # Fewer repetitions for very slow systems (Numba's strided cases take seconds a call):
        # at least 3 timed calls, then stop once the case has used its time budget.
        warmup, timed = reps
        began = time.perf_counter()
        for _ in range(warmup):
            work()
            if time.perf_counter() - began > budget_s:
                break
        self.sync()
        times = []
        for _ in range(timed):
            self.start.record()
            work()
            self.stop.record()
            self.stop.synchronize()
            times.append(self.elapsed_ms())
            if len(times) >= 3 and time.perf_counter() - began > budget_s:
                break
        return statistics.median(times)

    def elapsed_ms(self):
        return self.cp.cuda.get_elapsed_time(self.start, self.stop)

    def host_us_per_call(self, call, batches=20):
        """Host time per call: batches of back-to-back calls, synchronised between batches."""
        call()
        self.sync()
        t = time.perf_counter()
        call()
        one = time.perf_counter() - t
        self.sync()
        calls = int(min(500, max(10, 0.01 / max(one, 1e-7))))  # about 10 ms a batch
        for _ in range(calls):
            call()
        self.sync()
        per_call = []
        for _ in range(batches):
            t = time.perf_counter()
            for _ in range(calls):
                call()
            per_call.append((time.perf_counter() - t) * 1e6 / calls)
            self.sync()
        return statistics.median(per_call), calls


def reps_for(input_bytes):
    return LARGE_REPS if input_bytes >= LARGE_BYTES else SMALL_REPS


def check_indices(n):
    """bench/checks.cpp's sample: None (every element) up to 2^24, else edges + strided sample."""
    if n <= FULL_CHECK_LIMIT:
        return None
    edge = 4096
    stride = n // (1 << 20)
    k = np.arange((n + stride - 1) // stride, dtype=np.int64)
    middle = k * stride + (k * 7) % stride
    middle = middle[(middle >= edge) & (middle < n - edge)]
    return np.concatenate([np.arange(edge, dtype=np.int64), middle,
                           np.arange(n - edge, n, dtype=np.int64)])


def check_output(cp, got, n, want, tolerance):
    """Compares got (any device array, C order) with want(indices) -> float64 at the sample."""
    rtol, atol = tolerance
    flat = cp.asarray(got).reshape(-1)
    if flat.size != n:
        return dict(passed=False, detail=f"output has {flat.size} elements, expected {n}")
    idx = check_indices(n)
    if idx is None:
        idx = np.arange(n, dtype=np.int64)
        values = cp.asnumpy(flat)
    else:
        values = cp.asnumpy(flat[cp.asarray(idx)])
    values = values.astype(np.float64)
    expected = want(idx)
    with np.errstate(invalid="ignore"):
        error = np.abs(values - expected)
        ok = error <= atol + rtol * np.abs(expected)
    bad = np.flatnonzero(~ok)
    finite = np.isfinite(error)
    nonzero = finite & (expected != 0)
    result = dict(passed=bool(bad.size == 0), checked=int(idx.size), mismatches=int(bad.size),
                  max_abs_error=float(error[finite].max()) if finite.any() else float("nan"),
                  max_rel_error=float((error[nonzero] / np.abs(expected[nonzero])).max())
                  if nonzero.any() else 0.0)
    if bad.size:
        i = int(bad[0])
        result["detail"] = (f"{bad.size} of {idx.size} elements differ from the float64 "
                            f"reference; first at index {int(idx[i])}: got {float(values[i])!r}, "
                            f"want {float(expected[i])!r}")
    return result


def note_check(r, result):
    r["verified"] = bool(result["passed"])
    for key in ("checked", "max_abs_error", "max_rel_error"):
        if key in result:
            r["extra"][key] = result[key]
    if not result["passed"]:
        r["error"] = result.get("detail", "output mismatch")


def gaussian_reference(x):
    z = (x.astype(np.float64) - MEAN) / SIGMA
    return np.exp(-0.5 * z * z) / (SIGMA * SQRT_2PI)


def polar_reference(r1, t1, r2, t2):
    r1, t1, r2, t2 = (a.astype(np.float64) for a in (r1, t1, r2, t2))
    dx = r1 * np.cos(t1) - r2 * np.cos(t2)
    dy = r1 * np.sin(t1) - r2 * np.sin(t2)
    return np.sqrt(dx * dx + dy * dy)


def zero_suppress_reference(w):
    w = w.astype(np.float64)
    return np.where((w > -THRESHOLD) & (w < THRESHOLD), 0.0, w)


# ---------------------------------------------------------------------------------------------
# The systems: each gives the same operations; an operation it cannot do raises.

class NumbaSystem:
    name = "numba"
    has_out = True

    def __init__(self, cp):
        self.cp = cp
        from numba import cuda, vectorize
        self.cuda = cuda
        sqrt_2pi32 = np.float32(SQRT_2PI)  # the seed's constant

        @vectorize(["float32(float32, float32, float32)"], target="cuda")
        def gaussian_pdf32(x, mean, sigma):
            return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * sqrt_2pi32)

        @vectorize(["float64(float64, float64, float64)"], target="cuda")
        def gaussian_pdf64(x, mean, sigma):
            return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

        @cuda.jit(device=True)
        def polar_to_cartesian(rho, theta):
            return rho * math.cos(theta), rho * math.sin(theta)

        @vectorize(["float32(float32, float32, float32, float32)"], target="cuda")
        def polar_distance(rho1, theta1, rho2, theta2):
            x1, y1 = polar_to_cartesian(rho1, theta1)
            x2, y2 = polar_to_cartesian(rho2, theta2)
            return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5

        @vectorize(["int16(int16, int16)"], target="cuda")
        def zero_suppress(value, threshold):
            if value > -threshold and value < threshold:
                return 0
            return value

        @vectorize(["float32(float32, float32)"], target="cuda")
        def add(a, b):
            return a + b

        self.gaussian = {np.float32: gaussian_pdf32, np.float64: gaussian_pdf64}
        self.polar = polar_distance
        self.zero = zero_suppress
        self.add_ufunc = add

    def device(self, a):
        """A Numba view of a CuPy array (made once, outside the timing)."""
        return self.cuda.as_cuda_array(a)

    def gaussian_pdf(self, x, dtype, out=None):
        f = self.gaussian[dtype]
        if out is None:
            return f(x, dtype(MEAN), dtype(SIGMA))
        return f(x, dtype(MEAN), dtype(SIGMA), out=out)

    def polar_distance(self, r1, t1, r2, t2):
        return self.polar(r1, t1, r2, t2)

    def zero_suppress(self, w):
        return self.zero(w, np.int16(THRESHOLD))

    def add(self, a, b):
        return self.add_ufunc(a, b)

    def host_gaussian_pdf(self, x_host, y_host):
        self.gaussian[np.float32](x_host, np.float32(MEAN), np.float32(SIGMA), out=y_host)

    def empty(self, n, dtype):
        return self.cuda.device_array(n, dtype=dtype)


class CupyElementwiseSystem:
    name = "cupy-elementwise"
    has_out = True

    def __init__(self, cp):
        self.cp = cp
        self.gaussian_kernel = cp.ElementwiseKernel(
            "T x, T mean, T sigma", "T y",
            "const T z = (x - mean) / sigma;"
            " y = exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));",
            "bench_gaussian_pdf")
        self.polar_kernel = cp.ElementwiseKernel(
            "float32 rho1, float32 theta1, float32 rho2, float32 theta2", "float32 d",
            "const float dx = rho1 * cosf(theta1) - rho2 * cosf(theta2);"
            " const float dy = rho1 * sinf(theta1) - rho2 * sinf(theta2);"
            " d = sqrtf(dx * dx + dy * dy);",
            "bench_polar_distance")
        self.zero_kernel = cp.ElementwiseKernel(
            "int16 value, int16 threshold", "int16 y",
            "y = (value > -threshold && value < threshold) ? (short)0 : value;",
            "bench_zero_suppress")
        self.add_kernel = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b",
                                               "bench_add")

    def device(self, a):
        return a

    def gaussian_pdf(self, x, dtype, out=None):
        if out is None:
            return self.gaussian_kernel(x, dtype(MEAN), dtype(SIGMA))
        return self.gaussian_kernel(x, dtype(MEAN), dtype(SIGMA), out)

    def polar_distance(self, r1, t1, r2, t2):
        return self.polar_kernel(r1, t1, r2, t2)

    def zero_suppress(self, w):
        return self.zero_kernel(w, np.int16(THRESHOLD))

    def add(self, a, b):
        return self.add_kernel(a, b)

    def host_gaussian_pdf(self, x_host, y_host):
        self.gaussian_pdf(self.cp.asarray(x_host), np.float32).get(out=y_host)

    def empty(self, n, dtype):
        return self.cp.empty(n, dtype=dtype)


class CupyExpressionSystem:
    name = "cupy-expr"
    has_out = False  # an expression of several operations has no out= of its own

    def __init__(self, cp):
        self.cp = cp

    def device(self, a):
        return a

    def gaussian_pdf(self, x, dtype, out=None):
        if out is not None:
            raise NotImplementedError("a CuPy expression has no out= for the whole expression")
        cp = self.cp
        return cp.exp(-0.5 * ((x - MEAN) / SIGMA) ** 2) / (SIGMA * SQRT_2PI)

    def polar_distance(self, r1, t1, r2, t2):
        cp = self.cp
        x1, y1 = r1 * cp.cos(t1), r1 * cp.sin(t1)
        x2, y2 = r2 * cp.cos(t2), r2 * cp.sin(t2)
        return cp.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)

    def zero_suppress(self, w):
        cp = self.cp
        return cp.where((w > -THRESHOLD) & (w < THRESHOLD), np.int16(0), w)

    def add(self, a, b):
        return a + b

    def host_gaussian_pdf(self, x_host, y_host):
        self.gaussian_pdf(self.cp.asarray(x_host), np.float32).get(out=y_host)

    def empty(self, n, dtype):
        return self.cp.empty(n, dtype=dtype)


SYSTEM_CLASSES = {"numba": NumbaSystem, "cupy-elementwise": CupyElementwiseSystem,
                  "cupy-expr": CupyExpressionSystem}


# ---------------------------------------------------------------------------------------------
# Layouts (issue 14): bench/bench_layouts.hpp's cases, same names, shapes and views, run by
# CuPy's ElementwiseKernel and PyTorch (eager ops, TensorIterator) on views of one random buffer.

LAYOUT_SYSTEMS = ("cupy-elementwise", "torch")
LAYOUT_ROW_PADDING = 32  # floats after each output row of the mix (bench_layouts.cpp)
LAYOUT_SMALL_SIZE = 1 << 22


class LayoutViews:
    """The two buffers of the layout cases in one library: x (random in [-3, 3), 1-d) and s
    (random in [-1, 1), 1-d), with the one operation whose spelling differs (permute)."""

    def __init__(self, x, s, permute):
        self.x, self.s, self._permute = x, s, permute

    def region(self, base, shape):
        return base[:math.prod(shape)].reshape(shape)

    def permute(self, a, axes):
        return self._permute(a, axes)


def layout_specs(quick):
    """The cases: dicts of name, arrays (functions of a LayoutViews), op ('add', 'add1',
    'gauss'), padding of the output rows, and the ideal bytes (physical for stepped views)."""
    big = 1 << (20 if quick else 28)
    specs = []

    def add2(name, a, b, shape):
        n = math.prod(shape)
        specs.append(dict(name=name, arrays=[a, b], op="add", out_shape=shape, pad=0,
                          ideal_bytes=4.0 * (n + math.prod(a.shape_) + math.prod(b.shape_)),
                          ideal="the output once plus each input's distinct elements once"))

    class Region:  # a C-ordered region of a buffer, as a builder that knows its shape
        def __init__(self, buffer, shape):
            self.buffer, self.shape_ = buffer, tuple(shape)

        def __call__(self, v):
            return v.region(getattr(v, self.buffer), self.shape_)

    q = quick
    B, C, L = (16, 64, 1024) if q else (256, 1024, 1024)
    add2("layout_broadcast_3d", Region("x", (B, 1, L)), Region("s", (1, C, 1)), (B, C, L))
    N, C, H, W = (16, 8, 8, 1024) if q else (64, 64, 64, 1024)
    add2("layout_broadcast_4d", Region("x", (N, 1, H, W)), Region("s", (1, C, 1, W)),
         (N, C, H, W))
    a, d, L = (2, 4, 256) if q else (4, 16, 1024)
    add2("layout_broadcast_6d", Region("x", (a, 1, d, 1, d, L)), Region("s", (1, d, 1, d, 1, L)),
         (a, d, d, d, d, L))

    for step in (2, 3, 8):
        n = (big + step - 1) // step
        read = min(4 * step, 32)
        specs.append(dict(name=f"layout_stepped_last{step}",
                          arrays=[lambda v, step=step: v.x[:big:step]], op="add1",
                          out_shape=(n,), pad=0, ideal_bytes=float(n * (read + 4)),
                          logical_bytes=8.0 * n,
                          ideal=f"physical: {read} bytes read an element (min(4 step, 32): a "
                                f"32-byte sector holds 8 floats) + 4 written; ratio_logical in "
                                f"extra counts 4 + 4"))
    side = 1 << (10 if q else 14)
    specs.append(dict(name="layout_stepped_outer2",
                      arrays=[lambda v: v.region(v.x, (side, side))[::2, :]], op="add1",
                      out_shape=(side // 2, side), pad=0,
                      ideal_bytes=8.0 * (side // 2) * side,
                      ideal="8 bytes an element (whole rows are read, so physical = logical)"))

    keep3 = (64, 64, 256) if q else (512, 512, 1024)
    move3 = (256, 64, 64) if q else (1024, 512, 512)
    shape4 = (16, 16, 64, 64) if q else (64, 64, 256, 256)
    for name, shape, axes in (("layout_permute_3d_keeplast", keep3, (1, 0, 2)),
                              ("layout_permute_3d_movelast", move3, (2, 1, 0)),
                              ("layout_permute_4d_keeplast", shape4, (1, 0, 2, 3)),
                              ("layout_permute_4d_movelast", shape4, (0, 3, 2, 1))):
        n = math.prod(shape)
        specs.append(dict(name=name,
                          arrays=[lambda v, shape=shape, axes=axes:
                                  v.permute(v.region(v.x, shape), axes)],
                          op="add1", out_shape=tuple(shape[k] for k in axes), pad=0,
                          ideal_bytes=8.0 * n,
                          ideal="8 bytes an element (each input element read once, each output "
                                "written once)"))

    P, Q, R = keep3
    specs.append(dict(name="layout_mix_gaussian",
                      arrays=[lambda v: v.permute(v.region(v.x, keep3), (1, 0, 2)),
                              Region("s", (1, 1, R))],
                      op="gauss", out_shape=(Q, P, R), pad=LAYOUT_ROW_PADDING,
                      ideal_bytes=4.0 * (2 * P * Q * R + R),
                      ideal="x read once, mean once, the output written once"))

    for d in (2, 3, 5, 7):
        N = big // d
        add2(f"layout_smalllast_d{d}", Region("x", (N, d)), Region("s", (d,)), (N, d))
    return specs


def layout_strides(a):
    """A view's strides in elements (NumPy and CuPy count bytes, torch elements)."""
    if callable(getattr(a, "stride", None)):
        return tuple(a.stride())
    return tuple(st // a.itemsize for st in a.strides)


def layout_reference(spec, values):
    if spec["op"] == "add":
        return values[0] + values[1]
    if spec["op"] == "add1":
        return values[0] + 1.0
    z = (values[0] - values[1]) / SIGMA
    return np.exp(-0.5 * z * z) / (SIGMA * SQRT_2PI)


class CupyLayoutSystem(CupyElementwiseSystem):
    """CuPy's ElementwiseKernel (one kernel a call) over the views, into out=: the kernels of
    CupyElementwiseSystem."""

    def __init__(self, cp):
        super().__init__(cp)
        self.timer = Gpu(cp)
        self.how = "cupy.ElementwiseKernel, one kernel a call"

    def views(self, x, s):
        return LayoutViews(x, s, lambda a, axes: a.transpose(axes))

    def empty_out(self, shape):
        return self.cp.empty(shape, dtype=self.cp.float32)

    def poison(self, buffer):
        buffer.fill(np.nan)

    def call(self, op, arrays, out):
        if op == "add":
            self.add_kernel(arrays[0], arrays[1], out)
        elif op == "add1":
            self.add_kernel(arrays[0], np.float32(1.0), out)
        else:
            self.gaussian_kernel(arrays[0], arrays[1], np.float32(SIGMA), out)

    def to_cupy(self, a):
        return a


class TorchLayoutSystem:
    """PyTorch eager ops (TensorIterator) over the same memory (DLPack), into out=."""
    name = "torch"

    def __init__(self, cp):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch
        self.cp = cp
        self.version = torch.__version__
        self.timer = TorchTimer(torch)
        self.how = (f"torch {torch.__version__} eager: torch.add(a, b, out=); the mix is 6 eager "
                    f"ops (sub, div, square, mul, exp, div into out=)")

    def views(self, x, s):
        t = self.torch
        return LayoutViews(t.from_dlpack(x), t.from_dlpack(s), lambda a, axes: a.permute(*axes))

    def empty_out(self, shape):
        return self.torch.empty(shape, dtype=self.torch.float32, device="cuda")

    def poison(self, buffer):
        buffer.fill_(float("nan"))

    def call(self, op, arrays, out):
        t = self.torch
        if op == "add":
            t.add(arrays[0], arrays[1], out=out)
        elif op == "add1":
            t.add(arrays[0], 1.0, out=out)
        else:
            x, mean = arrays
            z = (x - mean).div_(SIGMA)
            t.div(z.square_().mul_(-0.5).exp_(), SIGMA * SQRT_2PI, out=out)

    def to_cupy(self, a):
        self.torch.cuda.synchronize()
        return self.cp.from_dlpack(a)

    def release(self):
        """Gives torch's cached blocks back between cases (CuPy's pool needs the memory too)."""
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class TorchTimer(Gpu):
    """Gpu.median_ms with torch.cuda.Event on torch's current stream."""

    def __init__(self, torch):
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def sync(self):
        self.torch.cuda.synchronize()

    def elapsed_ms(self):
        return self.start.elapsed_time(self.stop)


LAYOUT_CLASSES = {"cupy-elementwise": CupyLayoutSystem, "torch": TorchLayoutSystem}
LAYOUT_REPS = (2, 20)  # as bench_layouts.cpp: each call moves about 2 GB, 16 cases


# ---------------------------------------------------------------------------------------------
# The benchmark

class Peers:
    def __init__(self, cp, sizes, seed, system_names, layout_names=()):
        self.cp = cp
        self.layout_names = list(layout_names)
        self.sizes = sizes
        self.gpu = Gpu(cp)
        self.records = []
        self.dtod = {}
        self.random = cp.random.RandomState(seed)
        self.systems = []
        for name in system_names:
            try:
                self.systems.append(SYSTEM_CLASSES[name](cp))
            except Exception as exc:  # one library failing must not stop the others
                traceback.print_exc()
                self.add(record("setup", name, 0, "-", error=error_text(exc)))

    def add(self, r):
        self.records.append(r)
        state = r["error"] or ("verified" if r["verified"] else "-")
        print(f"  {r['case']:<24} {r['system']:<17} n={r['n']:<10} {r['dtype']:<8} "
              f"{r['time_ms']:>10.4f} ms {r['gbps']:>8.1f} GB/s ratio {r['ratio']:.3f} {state}",
              flush=True)

    # -- ceilings --------------------------------------------------------------------------

    def dtod_gbps(self, total_bytes):
        """A device-to-device copy reading total_bytes/2 and writing as many (cached)."""
        cp = self.cp
        copy_bytes = int(total_bytes // 2)
        if copy_bytes not in self.dtod:
            src = self.random.uniform(-1, 1, (copy_bytes + 3) // 4, dtype=cp.float32)
            dst = cp.empty_like(src)
            kind = cp.cuda.runtime.memcpyDeviceToDevice
            ms = self.gpu.median_ms(
                lambda: cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, copy_bytes, kind,
                                                    0),
                reps_for(copy_bytes))
            r = record("memcpy_dtod", "ceiling", copy_bytes, "bytes", verified=None,
                       method="cudaMemcpyAsync device to device (CuPy), CUDA events, median")
            set_bandwidth(r, 2.0 * copy_bytes, ms)
            self.dtod[copy_bytes] = r
            del src, dst
        return self.dtod[copy_bytes]["gbps"]

    def pinned_round_trip_gbps(self):
        cp = self.cp
        nbytes = self.sizes["pinned"]
        memory = cp.cuda.alloc_pinned_memory(nbytes)
        host = np.frombuffer(memory, np.float32, nbytes // 4)
        host[...] = np.random.default_rng(7).random(host.size, dtype=np.float32)
        device = cp.empty(nbytes // 4, dtype=cp.float32)
        rt = cp.cuda.runtime
        h2d = self.gpu.median_ms(lambda: rt.memcpyAsync(device.data.ptr, host.ctypes.data, nbytes,
                                                        rt.memcpyHostToDevice, 0), (2, 10))
        d2h = self.gpu.median_ms(lambda: rt.memcpyAsync(host.ctypes.data, device.data.ptr, nbytes,
                                                        rt.memcpyDeviceToHost, 0), (2, 10))
        for case, ms in (("pinned_h2d", h2d), ("pinned_d2h", d2h)):
            r = record(case, "ceiling", nbytes, "bytes", verified=None,
                       method=f"{nbytes} bytes of pinned memory (CuPy), CUDA events, median of 10")
            set_bandwidth(r, nbytes, ms)
            self.add(r)
        return 2.0 * nbytes / ((h2d + d2h) * 1e-3) / 1e9

    # -- cases -----------------------------------------------------------------------------

    def run_case(self, case, system, n, dtype, body):
        r = record(case, system.name, n, dtype)
        try:
            body(r)
        except Exception as exc:
            r["error"] = error_text(exc)
        self.add(r)

    def gaussian(self, system, x_all, dtype, log2, into_out=False):
        cp = self.cp
        n = 1 << log2
        itemsize = np.dtype(dtype).itemsize

        def body(r):
            x = system.device(x_all[:n])
            out = system.empty(n, dtype)
            reps = reps_for(n * itemsize)
            if into_out:
                ms = self.gpu.median_ms(lambda: system.gaussian_pdf(x, dtype, out=out), reps)
            else:
                ms = self.gpu.median_ms(lambda: system.gaussian_pdf(x, dtype), reps)
            r["method"] = (f"device arrays, scalar mean and sigma, "
                           f"{'into out=' if into_out else 'new output each call'}, "
                           f"CUDA events, median of {reps[1]}")
            set_bandwidth(r, 2.0 * n * itemsize, ms, "memcpy_dtod",
                          self.dtod_gbps(2.0 * n * itemsize))
            note_check(r, check_output(cp, self.fresh_gaussian(system, x, n, dtype), n,
                                       lambda idx: gaussian_reference(self.gather(x_all, idx, n)),
                                       TOL_GAUSS32 if dtype == np.float32 else TOL_GAUSS64))

        case = "gaussian_pdf_out" if into_out else "gaussian_pdf"
        self.run_case(case, system, n, np.dtype(dtype).name, body)

    def fresh_gaussian(self, system, x, n, dtype):
        """An output to check: written into a NaN-filled out= where the system has one."""
        if not system.has_out:
            return system.gaussian_pdf(x, dtype)
        out = system.empty(n, dtype)
        self.cp.asarray(out).fill(np.nan)
        system.gaussian_pdf(x, dtype, out=out)
        return out

    def gather(self, a, idx, n):
        """Host copy of a[:n] at idx (all of it for idx None)."""
        flat = a.reshape(-1)
        if idx is None:
            return self.cp.asnumpy(flat[:n])
        return self.cp.asnumpy(flat[self.cp.asarray(idx)])

    def polar(self, system, inputs):
        cp = self.cp
        n = inputs[0].size

        def body(r):
            args = [system.device(a) for a in inputs]
            reps = reps_for(4 * n)
            ms = self.gpu.median_ms(lambda: system.polar_distance(*args), reps)
            r["method"] = f"4 device inputs, new output each call, CUDA events, median of {reps[1]}"
            set_bandwidth(r, 5.0 * 4 * n, ms, "memcpy_dtod", self.dtod_gbps(5.0 * 4 * n))
            note_check(r, check_output(cp, system.polar_distance(*args), n,
                                       lambda idx: polar_reference(
                                           *(self.gather(a, idx, n) for a in inputs)),
                                       TOL_POLAR32))

        self.run_case("polar_distance", system, n, "float32", body)

    def zero_suppress(self, system, waveform):
        cp = self.cp
        n = waveform.size

        def body(r):
            w = system.device(waveform)
            reps = reps_for(2 * n)
            ms = self.gpu.median_ms(lambda: system.zero_suppress(w), reps)
            r["method"] = (f"values uniform in [-100, 100], threshold {THRESHOLD}, new output "
                           f"each call, CUDA events, median of {reps[1]}")
            set_bandwidth(r, 2.0 * 2 * n, ms, "memcpy_dtod", self.dtod_gbps(2.0 * 2 * n))
            note_check(r, check_output(cp, system.zero_suppress(w), n,
                                       lambda idx: zero_suppress_reference(
                                           self.gather(waveform, idx, n)),
                                       TOL_EXACT))

        self.run_case("zero_suppress", system, n, "int16", body)

    def broadcast(self, system, matrix, vector, row):
        cp = self.cp
        side = matrix.shape[0]
        n = side * side

        def body(r):
            a = system.device(matrix)
            b = system.device(vector)
            reps = reps_for(4 * n)
            ms = self.gpu.median_ms(lambda: system.add(a, b), reps)
            r["method"] = (f"out = a + b, a ({side}, {side}), b {tuple(vector.shape)}, new output "
                           f"each call, CUDA events, median of {reps[1]}")
            r["extra"]["rows"] = side
            nbytes = 4.0 * (2 * n + side)
            set_bandwidth(r, nbytes, ms, "memcpy_dtod", self.dtod_gbps(nbytes))
            vec_host = cp.asnumpy(vector).reshape(-1).astype(np.float64)

            def want(idx):
                idx = np.arange(n, dtype=np.int64) if idx is None else idx
                k = idx % side if row else idx // side
                return self.gather(matrix, idx, n).astype(np.float64) + vec_host[k]

            note_check(r, check_output(cp, system.add(a, b), n, want, TOL_ADD32))

        self.run_case("broadcast_row_add" if row else "broadcast_col_add", system, n, "float32",
                      body)

    def transposed(self, system, matrix):
        cp = self.cp
        side = matrix.shape[0]
        n = side * side

        def body(r):
            xt = system.device(matrix.T)
            reps = reps_for(4 * n)
            ms = self.gpu.median_ms(lambda: system.gaussian_pdf(xt, np.float32), reps)
            r["method"] = (f"input x.T of a C-ordered ({side}, {side}) matrix, CUDA events, "
                           f"median of {reps[1]}")
            r["extra"]["rows"] = side
            set_bandwidth(r, 2.0 * 4 * n, ms, "memcpy_dtod", self.dtod_gbps(2.0 * 4 * n))
            got = system.gaussian_pdf(xt, np.float32)
            got_c = cp.ascontiguousarray(cp.asarray(got))  # C order, whatever order it came in

            def want(idx):
                idx = np.arange(n, dtype=np.int64) if idx is None else idx
                i, j = idx // side, idx % side
                return gaussian_reference(self.gather(matrix, j * side + i, n))

            note_check(r, check_output(cp, got_c, n, want, TOL_GAUSS32))

        self.run_case("transposed_gaussian_pdf", system, n, "float32", body)

    def host_arrays(self, system, x_host, pinned_gbps):
        n = x_host.size

        def body(r):
            y_host = np.empty_like(x_host)
            reps = (1, 5)
            for _ in range(reps[0]):
                system.host_gaussian_pdf(x_host, y_host)
            times = []
            for _ in range(reps[1]):
                t = time.perf_counter()
                system.host_gaussian_pdf(x_host, y_host)
                times.append((time.perf_counter() - t) * 1e3)
            r["method"] = (f"NumPy float32 array in, NumPy array out (pageable), host wall time "
                           f"of the synchronous call, median of {reps[1]}")
            set_bandwidth(r, 2.0 * 4 * n, statistics.median(times), "pinned_h2d+d2h", pinned_gbps)
            y_host.fill(np.nan)
            system.host_gaussian_pdf(x_host, y_host)
            idx = check_indices(n)
            got = y_host if idx is None else y_host[idx]
            xs = x_host if idx is None else x_host[idx]
            note_check(r, check_output(self.cp, self.cp.asarray(got), got.size,
                                       lambda _: gaussian_reference(xs), TOL_GAUSS32))

        self.run_case("host_gaussian_pdf", system, n, "float32", body)

    def dispatch(self, system, x_all, with_out):
        cp = self.cp
        n = 1024

        def body(r):
            x = system.device(x_all[:n])
            out = system.empty(n, np.float32)
            if with_out:
                us, calls = self.gpu.host_us_per_call(
                    lambda: system.gaussian_pdf(x, np.float32, out=out))
            else:
                us, calls = self.gpu.host_us_per_call(lambda: system.gaussian_pdf(x, np.float32))
            r["time_ms"] = us / 1000.0
            r["method"] = (f"host time per call (time.perf_counter), 20 batches of {calls} "
                           f"back-to-back calls{' into out=' if with_out else ''}, median of "
                           f"batch averages")
            note_check(r, check_output(cp, self.fresh_gaussian(system, x, n, np.float32), n,
                                       lambda idx: gaussian_reference(self.gather(x_all, idx, n)),
                                       TOL_GAUSS32))

        self.run_case("dispatch_out" if with_out else "dispatch", system, n, "float32", body)

    def layouts(self, x32):
        """Issue 14's layout family, every case through every layout system in turn."""
        cp = self.cp
        if not self.layout_names:
            return
        big = 1 << (20 if self.sizes["layouts_quick"] else 28)
        if x32.size < big:
            raise ValueError(f"the layout cases need {big} random inputs, got {x32.size}")
        x = x32[:big]
        s = self.random.uniform(-1, 1, LAYOUT_SMALL_SIZE, dtype=cp.float32)
        self.gpu.sync()
        host = LayoutViews(cp.asnumpy(x), cp.asnumpy(s), np.transpose)
        systems = []
        for name in self.layout_names:
            try:
                systems.append(LAYOUT_CLASSES[name](cp))
            except Exception as exc:  # torch missing: a note, and the other systems go on
                print(f"peers.py: layout system {name} skipped: {error_text(exc)}")
                self.add(record("setup", name, 0, "-",
                                error=f"skipped the layout cases: {error_text(exc)}"))
        for spec in layout_specs(self.sizes["layouts_quick"]):
            for system in systems:
                self.layout_case(system, spec, x, s, host)
                release = getattr(system, "release", None)
                if release:
                    release()
            cp.get_default_memory_pool().free_all_blocks()

    def layout_case(self, system, spec, x, s, host):
        cp = self.cp
        shape = tuple(spec["out_shape"])
        n = math.prod(shape)

        def body(r):
            views = system.views(x, s)
            arrays = [build(views) for build in spec["arrays"]]
            pad = spec["pad"]
            if pad:
                buffer = system.empty_out(shape[:-1] + (shape[-1] + pad,))
                out = buffer[..., :shape[-1]]
            else:
                buffer = out = system.empty_out(shape)
            ms = system.timer.median_ms(lambda: system.call(spec["op"], arrays, out), LAYOUT_REPS)
            copy_gbps = self.dtod_gbps(spec["ideal_bytes"])
            set_bandwidth(r, spec["ideal_bytes"], ms, "memcpy_dtod", copy_gbps)
            if spec.get("logical_bytes"):
                logical_gbps = spec["logical_bytes"] / (ms * 1e-3) / 1e9
                r["extra"]["logical_bytes"] = spec["logical_bytes"]
                r["extra"]["logical_gbps"] = logical_gbps
                r["extra"]["ratio_logical"] = logical_gbps / copy_gbps if copy_gbps else 0.0
            described = ", ".join(f"{tuple(a.shape)} strides {layout_strides(a)}" for a in arrays)
            into = f"rows padded by {pad} floats of" if pad else "a C-ordered"
            r["method"] = (f"{spec['op']} of {described} into {into} {shape}; {system.how}; "
                           f"preallocated out=; ideal bytes: "
                           f"{spec['ideal']}; CUDA events, median of {LAYOUT_REPS[1]}")
            system.poison(buffer)
            system.call(spec["op"], arrays, out)
            got = system.to_cupy(out)
            host_arrays = [build(host) for build in spec["arrays"]]

            def want(idx):
                idx = np.arange(n, dtype=np.int64) if idx is None else idx
                where = np.unravel_index(idx, shape)
                values = [np.broadcast_to(a, shape)[where].astype(np.float64)
                          for a in host_arrays]
                return layout_reference(spec, values)

            note_check(r, check_output(cp, got, n, want,
                                       TOL_GAUSS32 if spec["op"] == "gauss" else TOL_ADD32))

        self.run_case(spec["name"], system, n, "float32", body)

    def run(self):
        cp = self.cp
        s = self.sizes
        free = cp.get_default_memory_pool().free_all_blocks
        pinned_gbps = self.pinned_round_trip_gbps()
        largest = max(s["gaussian"])

        x32 = self.random.uniform(-3, 3, 1 << largest, dtype=cp.float32)
        x64 = self.random.uniform(-3, 3, 1 << largest, dtype=cp.float64)
        for system in self.systems:
            for e in s["gaussian"]:
                self.gaussian(system, x32, np.float32, e)
            for e in s["gaussian"]:
                self.gaussian(system, x64, np.float64, e)
            if system.has_out:
                self.gaussian(system, x32, np.float32, largest, into_out=True)
            free()
        del x64
        free()

        n = 1 << s["polar"]
        polar_inputs = [self.random.uniform(0.5, 1.5, n, dtype=cp.float32),
                        self.random.uniform(-math.pi, math.pi, n, dtype=cp.float32),
                        self.random.uniform(0.5, 1.5, n, dtype=cp.float32),
                        self.random.uniform(-math.pi, math.pi, n, dtype=cp.float32)]
        for system in self.systems:
            self.polar(system, polar_inputs)
        del polar_inputs
        free()

        waveform = self.random.randint(-100, 101, 1 << s["zero_suppress"]).astype(cp.int16)
        for system in self.systems:
            self.zero_suppress(system, waveform)
        del waveform
        free()

        side = 1 << s["side"]
        matrix = self.random.uniform(-3, 3, side * side, dtype=cp.float32).reshape(side, side)
        row = self.random.uniform(-1, 1, (1, side), dtype=cp.float32)
        col = self.random.uniform(-1, 1, (side, 1), dtype=cp.float32)
        for system in self.systems:
            self.broadcast(system, matrix, row, True)
            self.broadcast(system, matrix, col, False)
            self.transposed(system, matrix)
            free()
        del matrix
        free()

        x_host = cp.asnumpy(x32[:1 << s["host"]]) if s["host"] <= largest else \
            np.random.default_rng(5).uniform(-3, 3, 1 << s["host"]).astype(np.float32)
        for system in self.systems:
            self.host_arrays(system, x_host, pinned_gbps)
            free()
        del x_host

        try:
            self.layouts(x32)
        except Exception as exc:  # the family's set-up; each case records its own errors
            traceback.print_exc()
            self.add(record("layout_setup", "peers", 0, "float32", error=error_text(exc)))
        free()

        for system in self.systems:
            self.dispatch(system, x32, False)
            if system.has_out:
                self.dispatch(system, x32, True)
        del x32
        free()

        self.records.extend(self.dtod[b] for b in sorted(self.dtod))


# ---------------------------------------------------------------------------------------------
# Start-up: a fresh interpreter, timed from inside (interpreter start excluded).

STARTUP_CHILD = r"""
import json, math, time
t0 = time.perf_counter()
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
SYSTEM, CASE = %(system)r, %(case)r
MEAN, SIGMA = %(mean)r, %(sigma)r
rng = np.random.default_rng(11)
x = rng.uniform(-3, 3, 1024).astype(np.float32)
y = np.random.default_rng(12).uniform(0.5, 4, 1024).astype(np.float32)
t = np.random.default_rng(13).uniform(-3, 3, 1024).astype(np.float32)
v = (x * 1000).astype(np.int16)
if SYSTEM == "numba":
    from numba import cuda, vectorize
    t1 = time.perf_counter()
    cuda.current_context()
    t2 = time.perf_counter()
    SQRT_2PI = np.float32((2 * math.pi) ** 0.5)
    def gaussian_pdf(x, mean, sigma):
        return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)
    try:
        f = vectorize(["float32(float32, float32, float32)"], target="cuda",
                      cache=True)(gaussian_pdf)
    except Exception:  # a numba-cuda without on-disk caching of vectorize
        f = vectorize(["float32(float32, float32, float32)"], target="cuda")(gaussian_pdf)
    xd = cuda.to_device(x)
    got = f(xd, np.float32(MEAN), np.float32(SIGMA)).copy_to_host()
else:
    import cupy as cp
    t1 = time.perf_counter()
    cp.cuda.runtime.free(0)
    t2 = time.perf_counter()
    if SYSTEM != "cupy-elementwise":  # CuPy's own ufuncs, gaussian_pdf only
        xd = cp.asarray(x)
        got = (cp.exp(-0.5 * ((xd - MEAN) / SIGMA) ** 2) / (SIGMA * math.sqrt(2 * math.pi))).get()
    elif CASE == "gaussian_pdf":
        xd = cp.asarray(x)
        k = cp.ElementwiseKernel("T x, T mean, T sigma", "T y",
            "const T z = (x - mean) / sigma;"
            " y = exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));",
            "bench_gaussian_pdf")
        got = k(xd, np.float32(MEAN), np.float32(SIGMA)).get()
    elif CASE == "polar_distance":  # samples/polar_distance.toml: its helper as a preamble
        r1, t1d, t2d = cp.asarray(y), cp.asarray(x), cp.asarray(t)
        k = cp.ElementwiseKernel("float32 rho1, float32 theta1, float32 rho2, float32 theta2",
            "float32 d",
            "float x1, y1, x2, y2; polar_to_cartesian(rho1, theta1, x1, y1);"
            " polar_to_cartesian(rho2, theta2, x2, y2);"
            " const float dx = x1 - x2; const float dy = y1 - y2; d = sqrtf(dx * dx + dy * dy);",
            "bench_polar_distance",
            preamble="__device__ void polar_to_cartesian(float rho, float theta, float& x, float& y)"
                     " { x = rho * cosf(theta); y = rho * sinf(theta); }")
        got = k(r1, t1d, r1, t2d).get()
    elif CASE == "zero_suppress":
        vd = cp.asarray(v)
        k = cp.ElementwiseKernel("T value, T threshold", "T y",
            "y = (value > -threshold && value < threshold) ? T(0) : value;", "bench_zero_suppress")
        got = k(vd, np.int16(1500)).get()
    else:  # add
        k = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b;", "bench_add")
        got = k(cp.asarray(x), cp.asarray(y)).get()
t3 = time.perf_counter()
if CASE == "gaussian_pdf":
    z = (x.astype(np.float64) - MEAN) / SIGMA
    want = np.exp(-0.5 * z * z) / (SIGMA * math.sqrt(2 * math.pi))
    ok = bool(np.all(np.abs(got - want) <= 1e-7 + 4e-6 * np.abs(want)))
elif CASE == "polar_distance":
    r, a, b = y.astype(np.float64), x.astype(np.float64), t.astype(np.float64)
    want = np.hypot(r * np.cos(a) - r * np.cos(b), r * np.sin(a) - r * np.sin(b))
    ok = bool(np.all(np.abs(got - want) <= 1e-5 + 1e-5 * want))
elif CASE == "zero_suppress":
    ok = bool(np.array_equal(got, np.where((v > -1500) & (v < 1500), 0, v).astype(np.int16)))
else:
    ok = bool(np.array_equal(got, x + y))
print("peers-startup-result " + json.dumps(dict(import_ms=(t1 - t0) * 1e3,
      context_ms=(t2 - t1) * 1e3, first_result_ms=(t3 - t2) * 1e3, verified=ok)))
"""

# Start-up cases per system: CuPy's ElementwiseKernel makes every sample's first call (and the
# two-input add), each from a source new to NVRTC; Numba and CuPy's ufuncs gaussian_pdf only.
STARTUP_CASES = {"cupy-elementwise": ("gaussian_pdf", "polar_distance", "zero_suppress", "add")}
STARTUP_DTYPES = {"zero_suppress": "int16"}


def run_startup_child(system, case, cache_dir):
    # CUDA_CACHE_DISABLE=1: NVRTC 12.9+ (and NVVM) keep compiled programs in the driver's compute
    # cache, so without it a "cold" run of a source compiled before measures that cache's hit.
    env = dict(os.environ, CUPY_CACHE_DIR=os.path.join(cache_dir, "cupy"),
               NUMBA_CACHE_DIR=os.path.join(cache_dir, "numba"), CUDA_CACHE_DISABLE="1")
    code = STARTUP_CHILD % dict(system=system, case=case, mean=MEAN, sigma=SIGMA)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    process_ms = (time.perf_counter() - start) * 1e3
    for line in done.stdout.splitlines():
        if line.startswith("peers-startup-result "):
            figures = json.loads(line.split(" ", 1)[1])
            figures["process_ms"] = process_ms
            return figures
    raise RuntimeError(f"start-up child for {system} ({case}) failed (exit {done.returncode}): "
                       f"{(done.stderr or done.stdout)[-2000:]}")


def startup_records(system, cold_runs, warm_runs):
    records = []
    for case in STARTUP_CASES.get(system, ("gaussian_pdf",)):
        records += startup_case_records(system, case, cold_runs, warm_runs)
    return records


def startup_case_records(system, case, cold_runs, warm_runs):
    records = []
    folders = []
    try:
        cold, warm = [], []
        for _ in range(cold_runs):
            folders.append(tempfile.mkdtemp(prefix="peers-cache-"))
            cold.append(run_startup_child(system, case, folders[-1]))
        for _ in range(warm_runs):
            warm.append(run_startup_child(system, case, folders[0]))
        for name, runs in ((f"startup_cold_{case}", cold), (f"startup_warm_{case}", warm)):
            r = record(name, system, 1024, STARTUP_DTYPES.get(case, "float32"))
            r["time_ms"] = statistics.median(run["first_result_ms"] for run in runs)
            for key in ("import_ms", "context_ms", "first_result_ms", "process_ms"):
                r["extra"][key] = statistics.median(run[key] for run in runs)
            r["extra"]["runs"] = len(runs)
            r["verified"] = all(run["verified"] for run in runs)
            r["method"] = ("fresh python3 -c process with NVRTC's cache off (CUDA_CACHE_DISABLE=1) "
                           "and the library's own kernel cache in a new folder (" +
                           ("empty" if name.startswith("startup_cold") else "filled by a cold run") +
                           "), time from after the context to the first result on the host "
                           "(kernel definition + upload + first call + copy back); import and "
                           f"context reported apart; median of {len(runs)}")
            records.append(r)
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return records


# ---------------------------------------------------------------------------------------------

def metadata(cp, started):
    meta = dict(tool="peers.py", date=started, python=platform.python_version(),
                numpy=np.__version__)
    try:
        meta["cupy"] = cp.__version__
        rt = cp.cuda.runtime
        props = rt.getDeviceProperties(0)
        name = props["name"]
        meta["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
        meta["cuda_runtime"] = rt.runtimeGetVersion()
        meta["cuda_driver_api"] = rt.driverGetVersion()
        meta["nvrtc"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    except Exception as exc:
        meta["cupy_error"] = error_text(exc)
    for module in ("numba", "numba_cuda", "scipy", "torch"):
        try:
            meta[module] = __import__(module).__version__
        except Exception as exc:
            meta[module] = f"unavailable ({error_text(exc)})"
    return meta


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help="comma-separated subset of " + ", ".join(SYSTEMS))
    parser.add_argument("--skip-startup", action="store_true", help="skip the start-up case")
    parser.add_argument("--only-startup", action="store_true", help="only the start-up case")
    parser.add_argument("--skip-layouts", action="store_true",
                        help="skip the layout family (issue 14)")
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    names = [s for s in args.systems.split(",") if s]
    unknown = [s for s in names if s not in SYSTEMS]
    if unknown:
        parser.error(f"unknown systems {unknown}; known: {', '.join(SYSTEMS)}")

    output = dict(metadata=dict(tool="peers.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers.py: no usable CuPy/GPU, skipping: {error_text(exc)}")
        output["metadata"]["skipped"] = error_text(exc)
    else:
        output["metadata"] = metadata(cp, started)
        print(f"peers on {output['metadata'].get('gpu')}: numpy {np.__version__}, cupy "
              f"{output['metadata'].get('cupy')}, numba {output['metadata'].get('numba')}",
              flush=True)
        sizes = quick_sizes() if args.quick else full_sizes()
        peers = Peers(cp, sizes, args.seed, [s for s in names if s in SYSTEM_CLASSES],
                      [] if args.skip_layouts else [s for s in names if s in LAYOUT_SYSTEMS])
        try:
            if not args.only_startup:
                peers.run()
        except Exception as exc:  # keep what was measured
            peers.records.append(record("run", "peers", 0, "-", error=error_text(exc)))
            traceback.print_exc()
        if not args.skip_startup:
            for system in (s for s in names if s in SYSTEM_CLASSES):
                try:
                    for r in startup_records(system, sizes["startup_cold"],
                                             sizes["startup_warm"]):
                        peers.add(r)
                except Exception as exc:
                    peers.add(record("startup_cold_gaussian_pdf", system, 1024, "float32",
                                     error=error_text(exc)))
        output["records"] = peers.records
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
