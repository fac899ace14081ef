#!/usr/bin/env python3
"""bench/probes/py_interop_probe.py: what each step of bringing a CuPy array or a torch tensor
into a jitvec call, finding the current stream and handing a result back costs, each step alone.

Issue 12 wants a jitvec call from Python (1024 float32 on the GPU, CuPy in) cheaper than CuPy's
ElementwiseKernel and torch.add; the binding (python/src/fast_interop.cpp) picks the cheapest
correct step for each part. This probe times the candidates in isolation, so the choice rests on
numbers from the H200 rather than on guesses:

  cupy in       x.data.ptr, x.data.device_id, x.dtype, x.ndim, x.size, x.shape, x._c_contiguous,
                x.strides, ...
                against the protocols (__cuda_array_interface__, __dlpack_device__, __dlpack__)
                and jitvec's own import of x (_jitvec._describe_import) with and without them
  cupy stream   cupy.cuda.get_current_stream(0).ptr (what jitvec calls), without the device,
                cupy.cuda.runtime.getDevice()
  cupy out      UnownedMemory, MemoryPointer, ndarray(shape, dtype, memptr) with and without
                strides, with a scalar type as the dtype, as ndarray.__new__'s two steps (what
                jitvec does in C++), jitvec's whole wrap (_cupy_view) both ways,
                cupy.ndarray(shape, dtype) from CuPy's pool, cupy.cuda.memory.alloc, cupy.empty,
                cupy.from_dlpack(jitvec.Array)
  torch in      t.data_ptr(), t.shape, t.stride(), t.dtype, t.is_cuda, t.get_device(),
                t.requires_grad, t.is_conj(), t.is_neg(), torch._C._to_dlpack(t), t.__dlpack__()
  torch stream  torch._C._cuda_getCurrentRawStream(0), torch.cuda.current_stream().cuda_stream
  torch out     torch._C._from_dlpack(capsule), torch.empty, torch.from_dlpack(jitvec.Array)

Method: timeit's loop over the statement (no function call around it), 2000 statements a
repeat, 25 repeats, the median repeat's time per statement and the 10th-90th percentile spread;
an empty statement's time (the loop itself) is printed first and not subtracted. The GPU is
synchronized between repeats (statements that allocate or launch queue no GPU work here except
the marked jitvec calls). Run on the GPU machine:

    python3 bench/probes/py_interop_probe.py [--json FILE] [--n 1024] [--number 2000]
"""
import argparse
import json
import statistics
import sys
import timeit

import numpy as np


def measure(stmt, ns, number, repeats, sync):
    timer = timeit.Timer(stmt, globals=ns)
    timer.timeit(number=max(1, number // 10))  # warm: caches, first-call imports
    per = []
    for _ in range(repeats):
        per.append(timer.timeit(number=number) * 1e6 / number)
        sync()
    per.sort()
    return statistics.median(per), per[len(per) // 10], per[(len(per) * 9) // 10]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", default=None)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--number", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=25)
    args = p.parse_args()

    import jitvec
    from jitvec import _jitvec
    if jitvec.cuda_device_count() == 0:
        sys.exit("py_interop_probe: no usable GPU")
    rows = []

    def section(title):
        print(f"\n{title}")
        print(f"  {'step':<62} {'median us':>9} {'p10':>7} {'p90':>7}")

    def row(group, name, stmt, ns, sync, number=None):
        try:
            med, lo, hi = measure(stmt, ns, number or args.number, args.repeats, sync)
        except Exception as e:  # a step a version lacks: say so, keep going
            print(f"  {name:<62} {'-':>9}  ({type(e).__name__}: {e})")
            rows.append({"group": group, "step": name, "stmt": stmt, "error": f"{type(e).__name__}: {e}"})
            return
        print(f"  {name:<62} {med:9.3f} {lo:7.3f} {hi:7.3f}", flush=True)
        rows.append({"group": group, "step": name, "stmt": stmt, "us": med, "p10": lo, "p90": hi})

    n = args.n
    versions = {"python": sys.version.split()[0], "numpy": np.__version__, "jitvec": jitvec.__version__}
    add = jitvec.vectorize(["float32(float32, float32)"],
                           "__device__ float add(float a, float b) { return a + b; }", name="add")

    # ---------------------------------------------------------------- CuPy
    try:
        import cupy as cp
    except ImportError:
        cp = None
        print("cupy not installed: its rows are skipped")
    if cp is not None:
        versions["cupy"] = cp.__version__
        x = cp.arange(n, dtype=cp.float32)
        x2 = cp.arange(2 * n, dtype=cp.float32).reshape(2, n)[:, ::2]  # not contiguous
        out = cp.empty_like(x)
        ja = jitvec.from_dlpack(x)
        ptr, nbytes = x.data.ptr, x.nbytes
        mem = cp.cuda.UnownedMemory(ptr, nbytes, x, 0)
        mp = cp.cuda.MemoryPointer(mem, 0)
        ns = {"x": x, "x2": x2, "out": out, "cp": cp, "np": np, "jitvec": jitvec, "_jitvec": _jitvec,
              "ja": ja, "ptr": ptr, "nbytes": nbytes, "mem": mem, "mp": mp, "add": add,
              "shape": (n,), "strides": (4,), "f32": np.dtype(np.float32),
              "gcs": cp.cuda.get_current_stream, "UM": cp.cuda.UnownedMemory,
              "MP": cp.cuda.MemoryPointer, "ND": cp.ndarray, "alloc": cp.cuda.memory.alloc,
              "getDevice": cp.cuda.runtime.getDevice, "F32": np.float32,
              "B": cp.ndarray.__mro__[1]}
        sync = cp.cuda.get_current_stream().synchronize
        section(f"CuPy {cp.__version__}: arguments in ({n} float32)")
        row("loop", "(empty statement: the timing loop itself)", "pass", ns, sync)
        row("cupy_in", "x.data", "x.data", ns, sync)
        row("cupy_in", "x.data.ptr", "x.data.ptr", ns, sync)
        row("cupy_in", "x.data.device_id", "x.data.device_id", ns, sync)
        row("cupy_in", "x.dtype", "x.dtype", ns, sync)
        row("cupy_in", "x.dtype.str", "x.dtype.str", ns, sync)
        row("cupy_in", "x.shape", "x.shape", ns, sync)
        row("cupy_in", "x.size", "x.size", ns, sync)
        row("cupy_in", "x.ndim", "x.ndim", ns, sync)
        row("cupy_in", "x._c_contiguous", "x._c_contiguous", ns, sync)
        row("cupy_in", "x.strides", "x.strides", ns, sync)
        row("cupy_in", "x.data.ptr, .device_id, x.dtype, x.ndim, x.size, x._c_contiguous (jitvec's, 1-d)",
            "d = x.data; d.ptr; d.device_id; x.dtype; x.ndim; x.size; x._c_contiguous", ns, sync)
        row("cupy_in", "type(x) is cp.ndarray", "type(x) is ND", ns, sync)
        row("cupy_in", "x.__cuda_array_interface__", "x.__cuda_array_interface__", ns, sync)
        row("cupy_in", "x.__dlpack_device__()", "x.__dlpack_device__()", ns, sync)
        row("cupy_in", "x.__dlpack__(stream=-1)", "x.__dlpack__(stream=-1)", ns, sync)
        row("cupy_in", "x.__dlpack__(stream=-1, max_version=(1, 0))",
            "x.__dlpack__(stream=-1, max_version=(1, 0))", ns, sync)
        row("cupy_in", "jitvec import of x, members (_describe_import)", "_jitvec._describe_import(x)", ns, sync)
        row("cupy_in", "jitvec import of x2 (not contiguous), members", "_jitvec._describe_import(x2)", ns, sync)
        _jitvec._set_interop(cupy_members=False)
        row("cupy_in", "jitvec import of x, protocol (_describe_import)", "_jitvec._describe_import(x)", ns, sync)
        _jitvec._set_interop(cupy_members=True)
        row("cupy_in", "jitvec.from_dlpack(x) (owning: protocol)", "jitvec.from_dlpack(x)", ns, sync)

        section("CuPy: the current stream")
        row("cupy_stream", "cp.cuda.get_current_stream(0).ptr (jitvec's)", "gcs(0).ptr", ns, sync)
        row("cupy_stream", "cp.cuda.get_current_stream().ptr", "gcs().ptr", ns, sync)
        row("cupy_stream", "cp.cuda.runtime.getDevice()", "getDevice()", ns, sync)
        s = cp.cuda.Stream(non_blocking=True)
        ns["s"] = s
        with s:
            row("cupy_stream", "cp.cuda.get_current_stream(0).ptr inside `with Stream`", "gcs(0).ptr", ns, sync)

        section("CuPy: results out")
        row("cupy_out", "UnownedMemory(ptr, nbytes, x, 0)", "UM(ptr, nbytes, x, 0)", ns, sync)
        row("cupy_out", "MemoryPointer(mem, 0)", "MP(mem, 0)", ns, sync)
        row("cupy_out", "cp.ndarray(shape, f32, mp) (no strides: jitvec's wrap)", "ND(shape, f32, mp)", ns, sync)
        row("cupy_out", "cp.ndarray(shape, f32, mp, strides)", "ND(shape, f32, mp, strides)", ns, sync)
        row("cupy_out", "the whole wrap: ndarray(shape, f32, MP(UM(...), 0))",
            "ND(shape, f32, MP(UM(ptr, nbytes, x, 0), 0))", ns, sync)
        row("cupy_out", "cp.ndarray(shape, np.float32, mp) (a scalar type as the dtype)", "ND(shape, F32, mp)", ns, sync)
        row("cupy_out", "_ndarray_base.__new__(ND); ._init(shape, np.float32, mp) (ndarray.__new__'s steps)",
            "v = B.__new__(ND); v._init(shape, F32, mp)", ns, sync)
        for fast in (True, False):
            _jitvec._set_interop(cupy_fast_new=fast)
            row("cupy_out", f"jitvec's wrap over x's memory (_cupy_view), cupy_fast_new={fast}",
                "_jitvec._cupy_view(ptr, 'float32', [len(x)], [], 0, x)", ns, sync)
        _jitvec._set_interop(cupy_fast_new=True)
        row("cupy_out", "cp.ndarray(shape, f32) (CuPy's pool: jitvec's pool mode)", "ND(shape, f32)", ns, sync)
        row("cupy_out", "cp.cuda.memory.alloc(nbytes)", "alloc(nbytes)", ns, sync)
        row("cupy_out", "cp.empty(shape, f32)", "cp.empty(shape, f32)", ns, sync)
        row("cupy_out", "cp.empty_like(x)", "cp.empty_like(x)", ns, sync)
        row("cupy_out", "cp.from_dlpack(jitvec.Array) (protocol)", "cp.from_dlpack(ja)", ns, sync)

        section("CuPy: whole jitvec calls (launches; for scale)")
        for mode in ("wrap", "pool", "protocol"):
            _jitvec._set_interop(cupy_result=mode)
            add(x, x)
            add(x, x)  # warm: the pool mode needs a completed call of the same key
            row("cupy_call", f"add(x, x), result mode {mode}", "add(x, x)", ns, sync)
        _jitvec._set_interop(cupy_result="wrap")
        row("cupy_call", "add(x, x, out=out), members", "add(x, x, out=out)", ns, sync)
        _jitvec._set_interop(cupy_members=False)
        row("cupy_call", "add(x, x, out=out), protocol", "add(x, x, out=out)", ns, sync)
        _jitvec._set_interop(cupy_members=True)
        row("cupy_call", "add(ja, ja) (jitvec.Array in and out)", "add(ja, ja)", ns, sync)

    # ---------------------------------------------------------------- torch
    try:
        import torch
    except ImportError:
        torch = None
        print("torch not installed: its rows are skipped")
    if torch is not None and torch.cuda.is_available():
        versions["torch"] = torch.__version__
        t = torch.arange(n, dtype=torch.float32, device="cuda")
        to = torch.empty_like(t)
        jt = jitvec.from_dlpack(t)
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        ns = {"t": t, "to": to, "torch": torch, "jt": jt, "raw": raw, "add": add,
              "to_dl": torch._C._to_dlpack, "from_dl": torch._C._from_dlpack, "_jitvec": _jitvec}
        sync = torch.cuda.synchronize
        section(f"torch {torch.__version__}: arguments in")
        row("loop", "(empty statement: the timing loop itself)", "pass", ns, sync)
        for stmt in ("t.data_ptr()", "t.shape", "t.stride()", "t.dtype", "t.is_cuda", "t.get_device()",
                     "t.device", "t.requires_grad", "t.is_contiguous()", "t.storage_offset()",
                     "t.is_conj()", "t.is_neg()", "t.layout", "type(t) is torch.Tensor"):
            row("torch_in", stmt, stmt, ns, sync)
        row("torch_in", "direct reads: data_ptr, shape, stride, dtype, get_device, requires_grad, is_conj, is_neg",
            "t.data_ptr(); t.shape; t.stride(); t.dtype; t.get_device(); t.requires_grad; t.is_conj(); t.is_neg()",
            ns, sync)
        row("torch_in", "torch._C._to_dlpack(t) (jitvec's, + capsule release)", "to_dl(t)", ns, sync)
        row("torch_in", "t.__dlpack__()", "t.__dlpack__()", ns, sync)
        row("torch_in", "t.__dlpack_device__()", "t.__dlpack_device__()", ns, sync)
        row("torch_in", "jitvec import of t (_describe_import)", "_jitvec._describe_import(t)", ns, sync)

        section("torch: the current stream")
        if raw is not None:
            row("torch_stream", "torch._C._cuda_getCurrentRawStream(0) (jitvec's)", "raw(0)", ns, sync)
        row("torch_stream", "torch.cuda.current_stream().cuda_stream", "torch.cuda.current_stream().cuda_stream", ns, sync)
        row("torch_stream", "torch.cuda.current_device()", "torch.cuda.current_device()", ns, sync)

        section("torch: results out")
        row("torch_out", "from_dl(to_dl(t)) (jitvec's result path, minus to_dl above)", "from_dl(to_dl(t))", ns, sync)
        row("torch_out", "torch.empty(1024, device='cuda')", f"torch.empty({n}, device='cuda')", ns, sync)
        row("torch_out", "torch.empty_like(t)", "torch.empty_like(t)", ns, sync)
        row("torch_out", "torch.from_dlpack(jitvec.Array) (protocol)", "torch.from_dlpack(jt)", ns, sync)

        section("torch: whole calls (launches; for scale)")
        row("torch_call", "torch.add(t, t, out=to)", "torch.add(t, t, out=to)", ns, sync)
        row("torch_call", "torch.add(t, t)", "torch.add(t, t)", ns, sync)
        row("torch_call", "jitvec add(t, t, out=to)", "add(t, t, out=to)", ns, sync)
        row("torch_call", "jitvec add(t, t)", "add(t, t)", ns, sync)

    print("\nversions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": n, "versions": versions, "number": args.number, "repeats": args.repeats,
                       "method": "timeit loop per statement, median repeat", "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
