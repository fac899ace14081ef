#!/usr/bin/env python3
"""bench/peers_reduce.py: issue 11's reduce and accumulate cases (bench/bench_reduce.hpp) through jitvec's peers.

Systems:
  reduce_sum_all_f32, reduce_rows_f32, reduce_cols_f32:
          cupy          cupy.sum(x, axis=..., out=out)
          cupy-rk       a cupy.ReductionKernel with the same user function as jitvec's bench_sum
                        (map 'x', reduce 'a + b', identity 0)
          torch         torch.sum(x, dim=..., out=out)
  accumulate_f32, accumulate_axis0_f32:
          cupy          cupy.cumsum(x, axis=0, out=out)
          torch         torch.cumsum(x, 0, out=out)
PyTorch systems are skipped with an error record where torch does not import.

Cases (bench_reduce.hpp's names and sizes): 2^28 float32 summed over every axis (ideal: read
once), a (2^14, 2^14) float32 matrix summed along axis 1 and axis 0 (ideal: read once plus the
output), the cumulative sum of 2^28 float32 and of a (2^14, 2^14) float32 matrix along axis 0
(ideal: read and written once); 2^20 and (2^10, 2^10) with --quick. Inputs are uniform in [0, 1). Each is timed with CUDA events (median of 30
after 3 warm-up calls), compared with a device-to-device copy of the same bytes measured in this
run, and checked against NumPy float64 sums after the output is poisoned with NaN, within the
bounds bench_reduce.cpp uses. A system that fails is recorded as an error record and the rest
goes on. The JSON schema and flags are bench/peers.py's.

    python3 bench/peers_reduce.py [--json FILE] [--quick]
"""

import argparse
import datetime
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (record, timing, checks and metadata shared with bench/peers.py)

REPS = (3, 30)
ROWS_BOUND = 3 * (16 + 2 + 8) * 2.0 ** -24
COLS_BOUND = (256 + 256) * 2.0 ** -24


def copy_gbps(cp, gpu, nbytes):
    """A device-to-device copy reading and writing nbytes / 2 each, as bench/gpu_ceilings.hpp."""
    half = int(nbytes // 2)
    src = cp.random.random(half // 8 + 1).view(cp.uint8)[:half]
    dst = cp.empty_like(src)
    ms = gpu.median_ms(lambda: cp.copyto(dst, src), REPS)
    return nbytes / (ms * 1e-3) / 1e9


def report(rec, records):
    records.append(rec)
    print(f"  {rec['case']:<20} {rec['system']:<10} ratio {rec['ratio']:.3f} "
          f"{'verified' if rec['verified'] else 'ERROR: ' + str(rec['error'])}", flush=True)


def run_systems(cp, gpu, case, n, nbytes, systems, out, check, records):
    ceiling = copy_gbps(cp, gpu, nbytes)
    for system, method, make_call in systems:
        rec = peers.record(case, system, n, "float32")
        try:
            call = make_call()
            ms = gpu.median_ms(call, REPS)
            peers.set_bandwidth(rec, nbytes, ms, "memcpy_dtod", ceiling)
            rec["method"] = method + "; CUDA events, median of 30"
            out.fill(np.nan)
            call()
            gpu.sync()
            peers.note_check(rec, check())
        except Exception as exc:
            rec["error"] = peers.error_text(exc)
            traceback.print_exc()
        report(rec, records)


def torch_views(*arrays):
    import torch
    return [torch.as_tensor(a, device="cuda") for a in arrays]


def reduce_case(cp, gpu, case, shape, axis, seed, records):
    rng = np.random.default_rng(seed)
    x_host = rng.random(shape, dtype=np.float32)
    x = cp.asarray(x_host)
    exact = x_host.astype(np.float64).sum(axis=axis)
    out_shape = exact.shape
    out = cp.empty(out_shape, dtype=cp.float32)
    n = int(np.prod(shape))
    nbytes = 4.0 * (n + int(np.prod(out_shape)))
    if axis is None:
        nbytes = 4.0 * n
    flat = np.atleast_1d(exact).ravel()
    bound = COLS_BOUND if axis == 0 else ROWS_BOUND
    check = lambda: peers.check_output(cp, out.reshape(-1), flat.size, lambda idx: flat[idx], (bound, 0.0))
    kernel = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "bench_sum")
    dim = tuple(range(len(shape))) if axis is None else axis
    systems = [
        ("cupy", f"cupy.sum(x, axis={axis}, out=out)", lambda: (lambda: cp.sum(x, axis=axis, out=out))),
        ("cupy-rk", f"cupy.ReductionKernel(map 'x', reduce 'a + b', identity 0)(x, axis={axis}, out=out)",
         lambda: (lambda: kernel(x, axis=axis, out=out))),
        ("torch", f"torch.sum(x, dim={dim}, out=out)",
         lambda: (lambda xt, ot: (lambda: __import__("torch").sum(xt, dim=dim, out=ot)))(*torch_views(x, out))),
    ]
    run_systems(cp, gpu, case, n, nbytes, systems, out, check, records)


def accumulate_case(cp, gpu, case, shape, seed, records):
    """The cumulative sum along axis 0 of a 1-d (accumulate_f32) or 2-d (accumulate_axis0_f32)
    float32 array, checked against NumPy's float64 cumsum within (length / 4096 + 24) roundings
    for 1-d (a scan over tiles of 4096) and (length + 24) for the columns (any order whose chain
    of roundings is at most the axis long)."""
    rng = np.random.default_rng(seed + 4 if len(shape) == 1 else seed + 5)
    x_host = rng.random(shape, dtype=np.float32)
    x = cp.asarray(x_host)
    out = cp.empty(shape, dtype=cp.float32)
    n = int(np.prod(shape))
    prefix = np.cumsum(x_host.astype(np.float64), axis=0).ravel()
    bound = ((shape[0] / 4096 if len(shape) == 1 else shape[0]) + 24) * 2.0 ** -24
    check = lambda: peers.check_output(cp, out.reshape(-1), n, lambda idx: prefix[idx], (bound, 0.0))
    systems = [
        ("cupy", "cupy.cumsum(x, axis=0, out=out)", lambda: (lambda: cp.cumsum(x, axis=0, out=out))),
        ("torch", "torch.cumsum(x, 0, out=out)",
         lambda: (lambda xt, ot: (lambda: __import__("torch").cumsum(xt, 0, out=ot)))(*torch_views(x, out))),
    ]
    run_systems(cp, gpu, case, n, 8.0 * n, systems, out, check, records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    output = dict(metadata=dict(tool="peers_reduce.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_reduce.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_reduce.py"
        gpu = peers.Gpu(cp)
        n = 1 << (20 if args.quick else 28)
        side = 1 << (10 if args.quick else 14)
        records = output["records"]
        for case in (lambda: reduce_case(cp, gpu, "reduce_sum_all_f32", (n,), None, args.seed, records),
                     lambda: reduce_case(cp, gpu, "reduce_rows_f32", (side, side), 1, args.seed + 1, records),
                     lambda: reduce_case(cp, gpu, "reduce_cols_f32", (side, side), 0, args.seed + 2, records),
                     lambda: accumulate_case(cp, gpu, "accumulate_f32", (n,), args.seed, records),
                     lambda: accumulate_case(cp, gpu, "accumulate_axis0_f32", (side, side), args.seed, records)):
            try:
                case()
            except Exception as exc:  # keep what was measured
                records.append(peers.record("run", "peers_reduce", 0, "-", error=peers.error_text(exc)))
                traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
