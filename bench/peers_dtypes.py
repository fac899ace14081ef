#!/usr/bin/env python3
"""bench/peers_dtypes.py: issue 10's dtype cases (bench/bench_dtypes.hpp) through jitvec's peers.

Systems:
  cupy-elementwise  cupy.ElementwiseKernel over float16 (gaussian_pdf computed in float, as
                    jitvec's source does) and complex64 (z * conj(z) + c, thrust complex)
  torch             PyTorch eager ops: x.float() math then .half(), and z * z.conj() + c;
                    skipped with an error record where torch does not import

Cases (bench_dtypes.hpp's names and sizes): dtype_gaussian_float16, 2^28 float16 elements, mean
0, sigma 1.5, ideal 4 bytes an element; dtype_zz_complex64, 2^27 complex64 elements,
c = 0.5 - 0.25j, ideal 16 bytes an element; 2^20 each with --quick. Each output is preallocated
(out=), timed with CUDA events (median of 30 after 3 warm-up calls), compared with a
device-to-device copy of the same bytes measured in this run, and checked against NumPy float64
(complex128) after being poisoned with NaN: float16 within rtol 2^-10, complex64 within
rtol 1e-6, atol 2e-5, as in bench/checks.hpp's use by bench_dtypes.cpp. A system that fails is
recorded as an error record and the rest goes on. The JSON schema and flags are bench/peers.py's.

    python3 bench/peers_dtypes.py [--json FILE] [--quick]
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

MEAN, SIGMA = 0.0, 1.5
SHIFT = complex(0.5, -0.25)
REPS = (3, 30)
TOL_HALF = (2.0 ** -10, 1e-7)
TOL_HALF_OPS = (2.0 ** -8, 1e-7)  # every operation rounded to float16: within 2^-8.97 over [-3, 3]
TOL_COMPLEX = (1e-6, 2e-5)


def copy_gbps(cp, gpu, nbytes):
    """A device-to-device copy reading and writing nbytes / 2 each, as bench/gpu_ceilings.hpp."""
    half = int(nbytes // 2)
    src = cp.random.random(half // 8 + 1).view(cp.uint8)[:half]
    dst = cp.empty_like(src)
    ms = gpu.median_ms(lambda: cp.copyto(dst, src), REPS)
    return nbytes / (ms * 1e-3) / 1e9


def gaussian_reference(x):
    x = x.astype(np.float64)
    return np.exp(-0.5 * ((x - MEAN) / SIGMA) ** 2) / (SIGMA * np.sqrt(2.0 * np.pi))


def run_case(cp, gpu, rec, nbytes, call, out, check, ceiling):
    ms = gpu.median_ms(call, REPS)
    peers.set_bandwidth(rec, nbytes, ms, "memcpy_dtod", ceiling)
    out.fill(np.nan)
    call()
    gpu.sync()
    peers.note_check(rec, check())


def keep(records, rec):
    records.append(rec)
    print(f"  {rec['case']:<24} {rec['system']:<18} ratio {rec['ratio']:.3f} "
          f"{'verified' if rec['verified'] else 'ERROR: ' + str(rec['error'])}", flush=True)


def gaussian_case(cp, gpu, systems, n, seed, records):
    """dtype_gaussian_float16: the sample's formula with every operation rounded to float16
    (NumPy's rules, what jitvec's row runs); dtype_gaussian_float16_f32math: float32 math inside,
    one rounding."""
    rng = np.random.default_rng(seed)
    x_host = rng.uniform(-3.0, 3.0, n).astype(np.float16)
    x = cp.asarray(x_host)
    out = cp.empty(n, dtype=cp.float16)
    ceiling = copy_gbps(cp, gpu, 4.0 * n)
    want = gaussian_reference(x_host)
    for case, tol in (("dtype_gaussian_float16", TOL_HALF_OPS), ("dtype_gaussian_float16_f32math", TOL_HALF)):
        numpy_rules = case == "dtype_gaussian_float16"
        check = lambda: peers.check_output(cp, out, n, lambda idx: want if idx is None else want[idx], tol)
        for system in systems:
            rec = peers.record(case, system, n, "float16")
            try:
                if system == "cupy-elementwise" and numpy_rules:
                    # Each operation in float, rounded to float16 at once, in the sample's order.
                    kernel = cp.ElementwiseKernel(
                        "float16 x, float16 mean, float16 sigma", "float16 y",
                        "const float16 d = (float16)((float)x - (float)mean);"
                        " const float16 z = (float16)((float)d / (float)sigma);"
                        " const float16 h = (float16)(-0.5f * (float)z);"
                        " const float16 e = (float16)expf((float)(float16)((float)h * (float)z));"
                        " const float16 c = (float16)((float)sigma * (float)(float16)2.5066282746310002f);"
                        " y = (float16)((float)e / (float)c);",
                        "peers_dtypes_gaussian_half_ops")
                    m, s = np.float16(MEAN), np.float16(SIGMA)
                    call = lambda: kernel(x, m, s, out)
                    rec["method"] = ("cupy.ElementwiseKernel over float16, every operation rounded to "
                                     "float16; out=; CUDA events, median of 30")
                elif system == "cupy-elementwise":
                    kernel = cp.ElementwiseKernel(
                        "float16 x, float32 mean, float32 sigma", "float16 y",
                        "const float z = ((float)x - mean) / sigma;"
                        " y = (float16)(expf(-0.5f * z * z) / (sigma * 2.5066282746310002f));",
                        "peers_dtypes_gaussian_half")
                    m, s = np.float32(MEAN), np.float32(SIGMA)
                    call = lambda: kernel(x, m, s, out)
                    rec["method"] = "cupy.ElementwiseKernel over float16, float math inside; out=; CUDA events, median of 30"
                else:
                    import torch
                    xt = torch.as_tensor(x, device="cuda")
                    ot = torch.as_tensor(out, device="cuda")
                    if numpy_rules:
                        def call():
                            z = (xt - MEAN) / SIGMA
                            torch.div(torch.exp(-0.5 * z * z), SIGMA * 2.5066282746310002, out=ot)
                        rec["method"] = ("torch eager on float16 tensors (each op rounded to float16); "
                                         "CUDA events, median of 30")
                    else:
                        def call():
                            t = (xt.float() - MEAN) / SIGMA
                            ot.copy_(torch.exp(-0.5 * t * t) / (SIGMA * 2.5066282746310002))
                        rec["method"] = "torch eager: float32 math on x.float(), copied into a float16 out; CUDA events, median of 30"
                run_case(cp, gpu, rec, 4.0 * n, call, out, check, ceiling)
            except Exception as exc:
                rec["error"] = peers.error_text(exc)
                traceback.print_exc()
            keep(records, rec)


def zz_case(cp, gpu, systems, n, seed, records):
    rng = np.random.default_rng(seed + 1)
    z_host = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(np.complex64)
    z = cp.asarray(z_host)
    out = cp.empty(n, dtype=cp.complex64)
    ceiling = copy_gbps(cp, gpu, 16.0 * n)
    zd = z_host.astype(np.complex128)
    want = zd * np.conj(zd) + SHIFT
    parts = np.empty(2 * n)
    parts[0::2], parts[1::2] = want.real, want.imag
    check = lambda: peers.check_output(cp, out.view(cp.float32), 2 * n,
                                       lambda idx: parts if idx is None else parts[idx], TOL_COMPLEX)
    for system in systems:
        rec = peers.record("dtype_zz_complex64", system, n, "complex64")
        try:
            if system == "cupy-elementwise":
                kernel = cp.ElementwiseKernel("complex64 z, complex64 c", "complex64 w",
                                              "w = z * conj(z) + c", "peers_dtypes_zz")
                c = np.complex64(SHIFT)
                call = lambda: kernel(z, c, out)
                rec["method"] = "cupy.ElementwiseKernel over complex64; out=; CUDA events, median of 30"
            else:
                import torch
                zt = torch.as_tensor(z, device="cuda")
                ot = torch.as_tensor(out, device="cuda")
                def call():
                    torch.add(zt * zt.conj(), SHIFT, out=ot)
                rec["method"] = "torch eager: torch.add(z * z.conj(), c, out=); CUDA events, median of 30"
            run_case(cp, gpu, rec, 16.0 * n, call, out, check, ceiling)
        except Exception as exc:
            rec["error"] = peers.error_text(exc)
            traceback.print_exc()
        keep(records, rec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes (2^20), a smoke test")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    output = dict(metadata=dict(tool="peers_dtypes.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_dtypes.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_dtypes.py"
        gpu = peers.Gpu(cp)
        systems = ("cupy-elementwise", "torch")
        try:
            gaussian_case(cp, gpu, systems, 1 << (20 if args.quick else 28), args.seed, output["records"])
            zz_case(cp, gpu, systems, 1 << (20 if args.quick else 27), args.seed, output["records"])
        except Exception as exc:  # keep what was measured
            output["records"].append(peers.record("run", "peers_dtypes", 0, "-",
                                                  error=peers.error_text(exc)))
            traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
