#!/usr/bin/env python3
"""bench/peers_fusion.py: issue 13's fused chains (bench/bench_fusion.hpp) through CuPy.

Systems, for each chain:
  cupy-elementwise      the chain as three cupy.ElementwiseKernel calls with the stage bodies of
                        bench_fusion.cpp, intermediates in preallocated out= arrays (case
                        fusion_<chain>_separate): what a CuPy user with user-defined functions
                        runs, since cupy.fuse fuses only CuPy's own operations
  cupy-handfused        one cupy.ElementwiseKernel whose body is the three stages written out by
                        hand (case fusion_<chain>_fused): what fusing by hand gives in CuPy

Chains (bench_fusion.hpp's names and sizes): chain3, v = h(g(f(x, y), z), w) with f = x*y + 1,
g = t - z, h = u*w; chain3_wide, four-input stages f(x, y, z, w) = x*y + z*w,
g(t, x, y, z) = t*x + y - z, h(u, y, z, w) = u*y - z + w. Four float32 inputs of 2^28 elements
(2^20 with --quick) uniform in [-1, 1). Ideal bytes: fused 20 an element (4 inputs read, 1
output written); separate 3 x (stage inputs + 1) x 4. Each is timed with CUDA events (median of
10 after 2 warm-up calls), compared with a device-to-device copy of the same bytes measured in
this run, and checked against NumPy float64 (rtol 1e-5, atol 1e-6) after the output is filled
with NaN. A system that fails is an error record and the rest goes on. The JSON schema and
flags are bench/peers.py's.

    python3 bench/peers_fusion.py [--json FILE] [--quick]
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

REPS = (2, 10)
TOLERANCE = (1e-5, 1e-6)

CHAINS = [
    dict(name="chain3", stage_inputs=2,
         stages=[("float32 x, float32 y", "t = x * y + 1.0f"),
                 ("float32 t, float32 z", "u = t - z"),
                 ("float32 u, float32 w", "v = u * w")],
         handfused="float t = x * y + 1.0f; float u = t - z; v = u * w",
         reference=lambda x, y, z, w: (x * y + 1.0 - z) * w),
    dict(name="chain3_wide", stage_inputs=4,
         stages=[("float32 x, float32 y, float32 z, float32 w", "t = x * y + z * w"),
                 ("float32 t, float32 x, float32 y, float32 z", "u = t * x + y - z"),
                 ("float32 u, float32 y, float32 z, float32 w", "v = u * y - z + w")],
         handfused=("float t = x * y + z * w; float u = t * x + y - z; v = u * y - z + w"),
         reference=lambda x, y, z, w: ((x * y + z * w) * x + y - z) * y - z + w),
]


def copy_gbps(cp, gpu, nbytes):
    """A device-to-device copy reading and writing nbytes / 2 each, as bench/gpu_ceilings.hpp."""
    half = int(nbytes // 2)
    src = cp.random.random(half // 8 + 1).view(cp.uint8)[:half]
    dst = cp.empty_like(src)
    ms = gpu.median_ms(lambda: cp.copyto(dst, src), REPS)
    del src, dst
    return nbytes / (ms * 1e-3) / 1e9


def report(rec, records):
    records.append(rec)
    print(f"  {rec['case']:<28} {rec['system']:<18} {rec['time_ms']:9.3f} ms  ratio "
          f"{rec['ratio']:.3f} {'verified' if rec['verified'] else 'ERROR: ' + str(rec['error'])}",
          flush=True)


def chain_case(cp, gpu, chain, n, inputs_host, inputs, records):
    x, y, z, w = inputs
    out = cp.empty(n, dtype=cp.float32)
    t = cp.empty(n, dtype=cp.float32)
    u = cp.empty(n, dtype=cp.float32)
    want = lambda idx: chain["reference"](*(a[idx].astype(np.float64) for a in inputs_host))
    check = lambda: peers.check_output(cp, out, n, want, TOLERANCE)
    k = chain["stage_inputs"]
    for system, case, nbytes in (
            ("cupy-elementwise", f"fusion_{chain['name']}_separate", 3.0 * 4.0 * (k + 1) * n),
            ("cupy-handfused", f"fusion_{chain['name']}_fused", 20.0 * n)):
        rec = peers.record(case, system, n, "float32")
        try:
            if system == "cupy-elementwise":
                kernels = [cp.ElementwiseKernel(params, "float32 " + body.split(" =")[0], body,
                                                f"peers_fusion_{chain['name']}_{i}")
                           for i, (params, body) in enumerate(chain["stages"])]
                if k == 2:
                    def call():
                        kernels[0](x, y, t)
                        kernels[1](t, z, u)
                        kernels[2](u, w, out)
                else:
                    def call():
                        kernels[0](x, y, z, w, t)
                        kernels[1](t, x, y, z, u)
                        kernels[2](u, y, z, w, out)
                rec["method"] = ("three cupy.ElementwiseKernel calls (the stage bodies), "
                                 "intermediates in preallocated out=; CUDA events around the "
                                 f"three, median of {REPS[1]}")
            else:
                kernel = cp.ElementwiseKernel("float32 x, float32 y, float32 z, float32 w",
                                              "float32 v", chain["handfused"],
                                              f"peers_fusion_{chain['name']}_handfused")
                call = lambda: kernel(x, y, z, w, out)
                rec["method"] = ("one cupy.ElementwiseKernel with the three stages written out by "
                                 f"hand, preallocated out=; CUDA events, median of {REPS[1]}")
            ms = gpu.median_ms(call, REPS)
            peers.set_bandwidth(rec, nbytes, ms, "memcpy_dtod", copy_gbps(cp, gpu, nbytes))
            out.fill(np.nan)
            call()
            gpu.sync()
            peers.note_check(rec, check())
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
    output = dict(metadata=dict(tool="peers_fusion.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_fusion.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_fusion.py"
        gpu = peers.Gpu(cp)
        n = 1 << (20 if args.quick else 28)
        try:
            rng = np.random.default_rng(args.seed)
            inputs_host = [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(4)]
            inputs = [cp.asarray(a) for a in inputs_host]
            for chain in CHAINS:
                try:
                    chain_case(cp, gpu, chain, n, inputs_host, inputs, output["records"])
                except Exception as exc:  # keep what was measured
                    output["records"].append(peers.record(f"fusion_{chain['name']}", "peers_fusion",
                                                          n, "float32", error=peers.error_text(exc)))
                    traceback.print_exc()
        except Exception as exc:
            output["records"].append(peers.record("run", "peers_fusion", 0, "-",
                                                  error=peers.error_text(exc)))
            traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
