#!/usr/bin/env python3
"""bench/peers_multi_output.py: issue 10's two-output case (bench/bench_multi_output.hpp) through jitvec's peers.

Systems (each writes sin(x) and cos(x) of one float32 input in one kernel):
  cupy        cupy.ElementwiseKernel("float32 x", "float32 s, float32 c", "s = sinf(x); c = cosf(x);")
              called with both outputs preallocated
  torch-jiterator  torch.cuda.jiterator._create_multi_output_jit_fn(code, num_outputs=2), its
              results copied into the preallocated outputs (the jiterator takes no out=); skipped
              with an error record where torch does not import or the jiterator does not run

Case multi_output_sincos_f32: x float32 uniform in [-pi, pi) of 2^28 elements (2^20 with --quick),
ideal 4 bytes read + 8 written an element. Timed with CUDA events (median of 30 after 3 warm-up
calls), compared with a device-to-device copy of the same bytes measured in this run, and both
outputs checked against NumPy float64 sin and cos (rtol 1e-6, atol 5e-7) after they are poisoned
with NaN. A system that fails is recorded as an error record and the rest goes on. The JSON schema
and flags are bench/peers.py's.

    python3 bench/peers_multi_output.py [--json FILE] [--quick]
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
TOLERANCE = (1e-6, 5e-7)

JITERATOR_CODE = """
template <typename T> void sincos_kernel(T x, T& s, T& c) {
  s = sin(x);
  c = cos(x);
}
"""


def copy_gbps(cp, gpu, nbytes):
    """A device-to-device copy reading and writing nbytes / 2 each, as bench/gpu_ceilings.hpp."""
    half = int(nbytes // 2)
    src = cp.random.random(half // 8 + 1).view(cp.uint8)[:half]
    dst = cp.empty_like(src)
    ms = gpu.median_ms(lambda: cp.copyto(dst, src), REPS)
    return nbytes / (ms * 1e-3) / 1e9


def sincos_case(cp, gpu, n, seed, records):
    rng = np.random.default_rng(seed)
    x_host = rng.uniform(-np.pi, np.pi, n).astype(np.float32)
    x = cp.asarray(x_host)
    both = cp.empty(2 * n, dtype=cp.float32)  # s then c, as bench_multi_output.cpp
    s, c = both[:n], both[n:]
    nbytes = 12.0 * n
    ceiling = copy_gbps(cp, gpu, nbytes)
    x64 = x_host.astype(np.float64)
    want = lambda idx: np.where(idx < n, np.sin(x64[idx % n]), np.cos(x64[idx % n]))
    for system in ("cupy", "torch-jiterator"):
        rec = peers.record("multi_output_sincos_f32", system, n, "float32")
        try:
            if system == "cupy":
                kernel = cp.ElementwiseKernel("float32 x", "float32 s, float32 c",
                                              "s = sinf(x); c = cosf(x);", "peers_sincos")
                call = lambda: kernel(x, s, c)
                rec["method"] = ("cupy.ElementwiseKernel two outputs (s = sinf(x); c = cosf(x)) into "
                                 "preallocated s, c; CUDA events, median of 30")
            else:
                import torch
                jit = torch.cuda.jiterator._create_multi_output_jit_fn(JITERATOR_CODE, num_outputs=2)
                xt, st, ct = (torch.as_tensor(v, device="cuda") for v in (x, s, c))

                def call():
                    rs, rc = jit(xt)
                    st.copy_(rs)
                    ct.copy_(rc)
                rec["method"] = ("torch.cuda.jiterator._create_multi_output_jit_fn(sin, cos; 2 outputs), "
                                 "results copied into s, c (no out=); CUDA events, median of 30")
            ms = gpu.median_ms(call, REPS)
            peers.set_bandwidth(rec, nbytes, ms, "memcpy_dtod", ceiling)
            both.fill(np.nan)
            call()
            gpu.sync()
            peers.note_check(rec, peers.check_output(cp, both, 2 * n, want, TOLERANCE))
        except Exception as exc:
            rec["error"] = peers.error_text(exc)
            traceback.print_exc()
        records.append(rec)
        print(f"  {rec['case']:<24} {rec['system']:<16} ratio {rec['ratio']:.3f} "
              f"{'verified' if rec['verified'] else 'ERROR: ' + str(rec['error'])}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    output = dict(metadata=dict(tool="peers_multi_output.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_multi_output.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_multi_output.py"
        try:
            sincos_case(cp, peers.Gpu(cp), 1 << (20 if args.quick else 28), args.seed, output["records"])
        except Exception as exc:  # keep what was measured
            output["records"].append(peers.record("run", "peers_multi_output", 0, "-",
                                                  error=peers.error_text(exc)))
            traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
