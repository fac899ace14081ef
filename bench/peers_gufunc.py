#!/usr/bin/env python3
"""bench/peers_gufunc.py: issue 11's outer and gufunc-dot cases (bench/bench_gufunc.hpp) through jitvec's peers.

Systems:
  outer:  cupy        cupy.multiply.outer(a, b, out=out)
          torch       torch.outer(a, b, out=out)
  dot:    cupy-einsum cupy.einsum("ij,ij->i", a, b), copied into out (einsum takes no out=)
          cupy-sum    cupy.sum(a * b, axis=-1, out=out) (a temporary a * b)
          torch-vecdot torch.linalg.vecdot(a, b, dim=-1, out=out)
          torch-einsum torch.einsum("ij,ij->i", a, b), copied into out
PyTorch systems are skipped with an error record where torch does not import.

Cases (bench_gufunc.hpp's names and sizes): gufunc_outer_f32, float32 vectors of 2^14 (2^10
with --quick) into a (2^14, 2^14) out, ideal 4 bytes an output plus the inputs;
gufunc_dot_n16, float32 (2^24, 16) x (2^24, 16) rows (2^16 with --quick) into a (2^24,) out,
ideal the inputs read once plus the output. Each is timed with CUDA events (median of 30 after 3
warm-up calls), compared with a device-to-device copy of the same bytes measured in this run,
and checked against NumPy float64 after the output is poisoned with NaN: the outer within
rtol 6e-8, the dot within 1e-5 of each row's sum of |a_i b_i| (the dot checked in those units,
as bench_gufunc.cpp does). A system that fails is recorded as an error record and the rest goes
on. The JSON schema and flags are bench/peers.py's.

    python3 bench/peers_gufunc.py [--json FILE] [--quick]
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
CORE = 16


def copy_gbps(cp, gpu, nbytes):
    """A device-to-device copy reading and writing nbytes / 2 each, as bench/gpu_ceilings.hpp."""
    half = int(nbytes // 2)
    src = cp.random.random(half // 8 + 1).view(cp.uint8)[:half]
    dst = cp.empty_like(src)
    ms = gpu.median_ms(lambda: cp.copyto(dst, src), REPS)
    return nbytes / (ms * 1e-3) / 1e9


def measure(cp, gpu, rec, nbytes, ceiling, call, out, check):
    ms = gpu.median_ms(call, REPS)
    peers.set_bandwidth(rec, nbytes, ms, "memcpy_dtod", ceiling)
    out.fill(np.nan)
    call()
    gpu.sync()
    peers.note_check(rec, check())


def report(rec, records):
    records.append(rec)
    print(f"  {rec['case']:<20} {rec['system']:<14} ratio {rec['ratio']:.3f} "
          f"{'verified' if rec['verified'] else 'ERROR: ' + str(rec['error'])}", flush=True)


def outer_case(cp, gpu, side, seed, records):
    rng = np.random.default_rng(seed)
    a_host = rng.uniform(-2, 2, side).astype(np.float32)
    b_host = rng.uniform(-2, 2, side).astype(np.float32)
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    out = cp.empty((side, side), dtype=cp.float32)
    nbytes = 4.0 * (side * side + 2 * side)
    ceiling = copy_gbps(cp, gpu, nbytes)
    a64, b64 = a_host.astype(np.float64), b_host.astype(np.float64)
    want = lambda idx: a64[idx // side] * b64[idx % side]
    check = lambda: peers.check_output(cp, out, side * side, want, (6e-8, 0.0))
    for system in ("cupy", "torch"):
        rec = peers.record("gufunc_outer_f32", system, side * side, "float32")
        try:
            if system == "cupy":
                call = lambda: cp.multiply.outer(a, b, out=out)
                rec["method"] = "cupy.multiply.outer(a, b, out=out); CUDA events, median of 30"
            else:
                import torch
                at, bt, ot = (torch.as_tensor(v, device="cuda") for v in (a, b, out))
                call = lambda: torch.outer(at, bt, out=ot)
                rec["method"] = "torch.outer(a, b, out=out); CUDA events, median of 30"
            measure(cp, gpu, rec, nbytes, ceiling, call, out, check)
        except Exception as exc:
            rec["error"] = peers.error_text(exc)
            traceback.print_exc()
        report(rec, records)


def dot_case(cp, gpu, rows, seed, records):
    rng = np.random.default_rng(seed + 1)
    a_host = rng.uniform(-1, 1, (rows, CORE)).astype(np.float32)
    b_host = rng.uniform(-1, 1, (rows, CORE)).astype(np.float32)
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    out = cp.empty(rows, dtype=cp.float32)
    read = 8.0 * rows * CORE
    nbytes = read + 4.0 * rows
    ceiling = copy_gbps(cp, gpu, nbytes)
    products = a_host.astype(np.float64) * b_host.astype(np.float64)
    exact = products.sum(axis=1)
    magnitude = np.abs(products).sum(axis=1)
    magnitude[magnitude == 0] = 1.0
    magnitude_device = cp.asarray(magnitude)
    scaled_want = exact / magnitude
    check = lambda: peers.check_output(cp, out.astype(cp.float64) / magnitude_device, rows,
                                       lambda idx: scaled_want[idx], (0.0, 1e-5))
    for system in ("cupy-einsum", "cupy-sum", "torch-vecdot", "torch-einsum"):
        rec = peers.record("gufunc_dot_n16", system, rows, "float32")
        try:
            if system == "cupy-einsum":
                call = lambda: cp.copyto(out, cp.einsum("ij,ij->i", a, b))
                rec["method"] = "cupy.einsum('ij,ij->i', a, b) copied into out; CUDA events, median of 30"
            elif system == "cupy-sum":
                call = lambda: cp.sum(a * b, axis=-1, out=out)
                rec["method"] = "cupy.sum(a * b, axis=-1, out=out) (a temporary a * b); CUDA events, median of 30"
            else:
                import torch
                at, bt, ot = (torch.as_tensor(v, device="cuda") for v in (a, b, out))
                if system == "torch-vecdot":
                    call = lambda: torch.linalg.vecdot(at, bt, dim=-1, out=ot)
                    rec["method"] = "torch.linalg.vecdot(a, b, dim=-1, out=out); CUDA events, median of 30"
                else:
                    call = lambda: ot.copy_(torch.einsum("ij,ij->i", at, bt))
                    rec["method"] = "torch.einsum('ij,ij->i', a, b) copied into out; CUDA events, median of 30"
            measure(cp, gpu, rec, nbytes, ceiling, call, out, check)
            rec["extra"]["bytes_read"] = read
            rec["extra"]["ratio_read"] = rec["ratio"] * read / nbytes
        except Exception as exc:
            rec["error"] = peers.error_text(exc)
            traceback.print_exc()
        report(rec, records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    output = dict(metadata=dict(tool="peers_gufunc.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_gufunc.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_gufunc.py"
        gpu = peers.Gpu(cp)
        for case in (lambda: outer_case(cp, gpu, 1 << (10 if args.quick else 14), args.seed, output["records"]),
                     lambda: dot_case(cp, gpu, 1 << (16 if args.quick else 24), args.seed, output["records"])):
            try:
                case()
            except Exception as exc:  # keep what was measured
                output["records"].append(peers.record("run", "peers_gufunc", 0, "-",
                                                      error=peers.error_text(exc)))
                traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
