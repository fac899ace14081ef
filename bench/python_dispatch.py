#!/usr/bin/env python3
"""bench/python_dispatch.py: what a jitvec call costs from Python on small CUDA arrays, and where
the microseconds go, against CuPy and PyTorch in the same run.

Case: 1024 float32 elements on the GPU, as in the issue's targets. Every number is host time per
call: batches of back-to-back calls (about 10 ms each), synchronised between batches, median of
20 batch averages (bench/peers.py's method). Rows:

  cupy ElementwiseKernel gaussian_pdf      peer, out= and allocating
  torch.add                                peer, out= and allocating
  jitvec gaussian_pdf, CuPy in             out= (CuPy) and allocating (CuPy result): the default
                                           paths (CuPy's members read, the result wrapped)
  jitvec add, torch in                     out= (torch) and allocating (torch result)
  the other CuPy paths                     members off (the DLPack protocol in), the result from
                                           CuPy's pool (pool) or through the protocol
  breakdown of the CuPy call:
    C++ loop                               the same call made from C++ (_cpp_call_loop): the floor
    jitvec.Array in/out=                   + the Python binding (argument parsing, GIL policy)
    CuPy in, CuPy out=                     + argument import (type lookup, CuPy's members, the
                                             current stream)
    CuPy in, allocating                    + result wrapping (cupy.ndarray over jitvec's memory)
    isolated pieces: jitvec's import of x (_describe_import: classify, stream, members),
    cupy.cuda.get_current_stream(0).ptr, the result wrap's three constructors from Python,
    cupy.from_dlpack(jitvec.Array)
The summary at the end splits jitvec's CuPy call into dispatch+launch (C++), binding, argument
import and result wrapping, and checks the issue's targets (jitvec below both peers with and
without out=, at most 1.5 us above the C++ call). Outputs are checked against a float64 NumPy
reference before times are reported. bench/probes/py_interop_probe.py times each candidate step
of the import, stream and result alone.

    python3 bench/python_dispatch.py [--json FILE] [--n 1024]
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import jitvec
from jitvec import _jitvec

GAUSS_SRC = """
template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) {
    const T z = (x - mean) / sigma;
    return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
}"""


def host_us_per_call(call, sync, batches=20):
    call()
    sync()
    t = time.perf_counter()
    call()
    one = time.perf_counter() - t
    sync()
    calls = int(min(2000, max(10, 0.01 / max(one, 1e-7))))
    for _ in range(calls):
        call()
    sync()
    per_call = []
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(calls):
            call()
        per_call.append((time.perf_counter() - t) * 1e6 / calls)
        sync()
    return statistics.median(per_call)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", default=None)
    p.add_argument("--n", type=int, default=1024)
    args = p.parse_args()
    if jitvec.cuda_device_count() == 0:
        sys.exit("python_dispatch: no usable GPU")
    import cupy as cp
    n = args.n
    rows = []

    def row(name, us, note=""):
        rows.append({"case": name, "us_per_call": us, "note": note})
        print(f"{name:<48} {us:8.2f} us  {note}", flush=True)

    rng = np.random.default_rng()
    xh = rng.uniform(-3, 3, n).astype(np.float32)
    yh = rng.uniform(-3, 3, n).astype(np.float32)
    ref = np.exp(-0.5 * xh.astype(np.float64) ** 2) / np.sqrt(2 * np.pi)
    x, y = cp.asarray(xh), cp.asarray(yh)
    out = cp.empty_like(x)
    sync = cp.cuda.get_current_stream().synchronize

    def checked(name, got, want, tol=1e-5):
        got = cp.asnumpy(got) if hasattr(got, "get") else np.asarray(got)
        if not np.allclose(got, want, rtol=tol, atol=1e-7):
            raise SystemExit(f"python_dispatch: {name} gave wrong values")

    gauss = jitvec.vectorize(["float32(float32, float32, float32)"], GAUSS_SRC, name="gaussian_pdf")
    add = jitvec.vectorize(["float32(float32, float32)"],
                           "__device__ float add(float a, float b) { return a + b; }", name="add")

    ek = cp.ElementwiseKernel("float32 x, float32 mean, float32 sigma", "float32 y",
                              "const float z = (x - mean) / sigma; "
                              "y = expf(-0.5f * z * z) / (sigma * 2.5066282746310002f);", "ek_gauss")
    checked("cupy EK", ek(x, np.float32(0), np.float32(1)), ref)
    row("cupy ElementwiseKernel gaussian_pdf out=", host_us_per_call(lambda: ek(x, np.float32(0), np.float32(1), out), sync))
    row("cupy ElementwiseKernel gaussian_pdf alloc", host_us_per_call(lambda: ek(x, np.float32(0), np.float32(1)), sync))

    checked("jitvec cupy", gauss(x, 0.0, 1.0), ref)
    gauss(x, 0.0, 1.0, out=out)
    checked("jitvec cupy out=", out, ref)
    row("jitvec gaussian_pdf CuPy in, out=", host_us_per_call(lambda: gauss(x, 0.0, 1.0, out=out), sync))
    row("jitvec gaussian_pdf CuPy in, alloc", host_us_per_call(lambda: gauss(x, 0.0, 1.0), sync))

    try:
        import torch
        xt, yt = torch.as_tensor(xh, device="cuda"), torch.as_tensor(yh, device="cuda")
        ot = torch.empty_like(xt)
        tsync = torch.cuda.synchronize
        row("torch.add out=", host_us_per_call(lambda: torch.add(xt, yt, out=ot), tsync))
        row("torch.add alloc", host_us_per_call(lambda: torch.add(xt, yt), tsync))
        got = add(xt, yt)
        assert isinstance(got, torch.Tensor) and got.device == xt.device
        checked("jitvec torch", got.cpu().numpy(), xh.astype(np.float64) + yh)
        row("jitvec add torch in, out=", host_us_per_call(lambda: add(xt, yt, out=ot), tsync))
        row("jitvec add torch in, alloc", host_us_per_call(lambda: add(xt, yt), tsync))
    except ImportError:
        print("torch not installed: its rows are skipped")

    # The other paths for CuPy arrays (fast_interop.hpp), then back to the defaults.
    _jitvec._set_interop(cupy_members=False)
    checked("jitvec cupy, protocol in", gauss(x, 0.0, 1.0), ref)
    row("jitvec gaussian_pdf CuPy in (protocol), out=", host_us_per_call(lambda: gauss(x, 0.0, 1.0, out=out), sync))
    _jitvec._set_interop(cupy_members=True)
    for mode in ("pool", "protocol"):
        _jitvec._set_interop(cupy_result=mode)
        checked(f"jitvec cupy, result {mode}", gauss(x, 0.0, 1.0), ref)
        checked(f"jitvec cupy, result {mode}", gauss(x, 0.0, 1.0), ref)  # pool: from the 2nd call
        row(f"jitvec gaussian_pdf CuPy in, alloc (result {mode})", host_us_per_call(lambda: gauss(x, 0.0, 1.0), sync))
    _jitvec._set_interop(cupy_result="wrap")

    # Breakdown of the CuPy call.
    stream = cp.cuda.get_current_stream().ptr
    jx, jout = jitvec.from_dlpack(x), jitvec.from_dlpack(out)
    row("  C++ loop (jitvec.Array, out=)",
        statistics.median(_jitvec._cpp_call_loop(gauss, [jx, 0.0, 1.0], jout, stream, 2000) for _ in range(7)))
    row("  C++ loop (jitvec.Array, alloc)",
        statistics.median(_jitvec._cpp_call_loop(gauss, [jx, 0.0, 1.0], None, stream, 2000) for _ in range(7)))
    row("  Python, jitvec.Array in, out=", host_us_per_call(lambda: gauss(jx, 0.0, 1.0, out=jout), sync))
    row("  Python, jitvec.Array in, alloc (jitvec.Array)", host_us_per_call(lambda: gauss(jx, 0.0, 1.0), sync))
    row("  piece: jitvec import of x (_describe_import)", host_us_per_call(lambda: _jitvec._describe_import(x), sync))
    _jitvec._set_interop(cupy_members=False)
    row("  piece: jitvec import of x, protocol", host_us_per_call(lambda: _jitvec._describe_import(x), sync))
    _jitvec._set_interop(cupy_members=True)
    row("  piece: cupy.cuda.get_current_stream(0).ptr", host_us_per_call(lambda: cp.cuda.get_current_stream(0).ptr, sync))
    shape, f32 = (n,), np.dtype(np.float32)
    um, mp, nd = cp.cuda.UnownedMemory, cp.cuda.MemoryPointer, cp.ndarray
    ptr = out.data.ptr
    row("  piece: ndarray(shape, dtype, MemoryPointer(UnownedMemory(..)))",
        host_us_per_call(lambda: nd(shape, f32, mp(um(ptr, 4 * n, out, 0), 0)), sync))
    row("  piece: cupy.ndarray(shape, dtype) (CuPy's pool)", host_us_per_call(lambda: nd(shape, f32), sync))
    row("  piece: x.__dlpack_device__()", host_us_per_call(lambda: x.__dlpack_device__(), sync))
    row("  piece: x.__dlpack__(stream=-1)", host_us_per_call(lambda: x.__dlpack__(stream=-1), sync))
    r = gauss(jx, 0.0, 1.0)
    row("  piece: cupy.from_dlpack(jitvec.Array)", host_us_per_call(lambda: cp.from_dlpack(r), sync))

    # Where the microseconds of jitvec's CuPy call go, and the targets.
    us = {r["case"]: r["us_per_call"] for r in rows}
    print(f"\n  {'where the time of jitvec CuPy call goes (us)':<66} {'out=':>6} {'alloc':>8}")
    cpp_out, cpp_alloc = us["  C++ loop (jitvec.Array, out=)"], us["  C++ loop (jitvec.Array, alloc)"]
    binding = us["  Python, jitvec.Array in, out="] - cpp_out
    imported = us["jitvec gaussian_pdf CuPy in, out="] - us["  Python, jitvec.Array in, out="]
    total_out, total_alloc = us["jitvec gaussian_pdf CuPy in, out="], us["jitvec gaussian_pdf CuPy in, alloc"]
    parts = [  # the alloc column reuses the out= call's binding and import; the rest is the result
        ("dispatch + launch (the C++ loop)", cpp_out, cpp_alloc),
        ("binding (jitvec.Array in, out=, from Python - C++)", binding, binding),
        ("argument import (CuPy in - jitvec.Array in, out=)", imported, imported),
        ("result wrapping (the rest)", total_out - cpp_out - binding - imported,
         total_alloc - cpp_alloc - binding - imported),
        ("total (jitvec CuPy in)", total_out, total_alloc),
    ]
    for name, a, b in parts:
        print(f"  {name:<66} {a:6.2f} {b:8.2f}")
    targets = []
    for kind, mine, ek, th, cpp in (
            ("out=", "jitvec gaussian_pdf CuPy in, out=", "cupy ElementwiseKernel gaussian_pdf out=", "torch.add out=",
             "  C++ loop (jitvec.Array, out=)"),
            ("alloc", "jitvec gaussian_pdf CuPy in, alloc", "cupy ElementwiseKernel gaussian_pdf alloc", "torch.add alloc",
             "  C++ loop (jitvec.Array, alloc)")):
        targets.append((f"{kind}: jitvec {us[mine]:.2f} < CuPy EK {us[ek]:.2f}", us[mine] < us[ek]))
        if th in us:
            targets.append((f"{kind}: jitvec {us[mine]:.2f} < torch.add {us[th]:.2f}", us[mine] < us[th]))
        targets.append((f"{kind}: jitvec - C++ = {us[mine] - us[cpp]:.2f} <= 1.5 us", us[mine] - us[cpp] <= 1.5))
    print("issue 12's targets:")
    for text, ok in targets:
        print(f"  {'PASS' if ok else 'MISS'}  {text}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": n, "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                       "method": "host time per call, batches of back-to-back calls, median of 20",
                       "rows": rows, "targets": [{"target": t, "pass": ok} for t, ok in targets]},
                      f, indent=2)


if __name__ == "__main__":
    main()
