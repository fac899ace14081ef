"""The seed tutorial's three samples from Python: gaussian_pdf, polar_distance, zero_suppress.

Each ufunc comes from the TOML file beside the C++ samples (samples/*.toml), is called as the
tutorial calls it, and every element is checked against a float64 NumPy reference. A cache
precompiled with `jitvec compile samples/*.toml --cache-dir kernels_cache` serves it (run with
JITVEC_CACHE_PATH=kernels_cache): the counters printed last then show no compiles. With a GPU
(and CuPy), the inputs are CuPy arrays on the GPU and the results come back as CuPy arrays,
zero-copy, on CuPy's current stream; without one, NumPy arrays on the cpu target.

    python3 samples/python/seed_samples.py [--target cuda|cpu|parallel] [-n N] [--seed S]

Prints one line per sample and PASS, or what failed (exit status 1).
"""
import argparse
import os
import sys
import time

import numpy as np

import jitvec

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Definition files are named as `jitvec compile samples/*.toml` (run from the repository root)
# names them: the name enters the generated source (#line), so a precompiled cache matches.
SAMPLES = "samples"


def choose_backend(target):
    """(target, array module, why): CuPy on cuda when a GPU and CuPy are there, else NumPy."""
    if target in (None, "cuda") and jitvec.cuda_device_count() > 0:
        try:
            import cupy
            return "cuda", cupy, "a GPU is usable and CuPy is installed"
        except ImportError:
            return "cuda", np, "a GPU is usable, CuPy is not installed: NumPy arrays go host->GPU->host"
    if target == "cuda":
        sys.exit("--target cuda: no usable GPU here")
    return target or "cpu", np, "no usable GPU" if target is None else "asked for"


def to_numpy(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def check(name, got, ref, rtol, atol, exact=False):
    got = to_numpy(got)
    bad = np.count_nonzero(got != ref) if exact else np.count_nonzero(~np.isclose(got, ref, rtol=rtol, atol=atol))
    worst = 0.0 if exact else float(np.max(np.abs(got.astype(np.float64) - ref))) if got.size else 0.0
    print(f"  {name}: {got.size} elements, {bad} outside tolerance, max |error| {worst:.3g}")
    return bad == 0


def gaussian_pdf_sample(xp, target, n, rng):
    f = jitvec.load_definitions(os.path.join(SAMPLES, "gaussian_pdf.toml"))["gaussian_pdf"]
    x = rng.uniform(-3, 3, size=n).astype(np.float32)
    mean, sigma = 0.0, 1.0
    t0 = time.perf_counter()
    y = f(xp.asarray(x), mean, sigma, target=target)
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()
    print(f"gaussian_pdf: {type(y).__module__}.{type(y).__name__} {y.dtype} in {1e3 * (time.perf_counter() - t0):.1f} ms")
    z = (x.astype(np.float64) - mean) / sigma
    return check("gaussian_pdf", y, np.exp(-0.5 * z * z) / (sigma * np.sqrt(2 * np.pi)), 1e-5, 1e-7)


def polar_distance_sample(xp, target, n, rng):
    f = jitvec.load_definitions(os.path.join(SAMPLES, "polar_distance.toml"))["polar_distance"]
    rho1, rho2 = (rng.uniform(0.5, 1.5, size=n).astype(np.float32) for _ in range(2))
    theta1, theta2 = (rng.uniform(-np.pi, np.pi, size=n).astype(np.float32) for _ in range(2))
    d = f(*(xp.asarray(a) for a in (rho1, theta1, rho2, theta2)), target=target)
    r1, t1, r2, t2 = (a.astype(np.float64) for a in (rho1, theta1, rho2, theta2))
    ref = np.hypot(r1 * np.cos(t1) - r2 * np.cos(t2), r1 * np.sin(t1) - r2 * np.sin(t2))
    print(f"polar_distance: {type(d).__module__}.{type(d).__name__} {d.dtype}")
    return check("polar_distance", d, ref, 1e-4, 1e-5)


def zero_suppress_sample(xp, target, n, rng):
    f = jitvec.load_definitions(os.path.join(SAMPLES, "zero_suppress.toml"))["zero_suppress"]
    noise = rng.normal(size=n) * 3
    pulses = np.maximum(np.sin(np.arange(n) / (n / 23)) - 0.3, 0.0)
    waveform = ((pulses * 300) + noise).astype(np.int16)
    out = f(xp.asarray(waveform), 15.0, target=target)  # 15.0 is weak: the int16 loop
    print(f"zero_suppress: {type(out).__module__}.{type(out).__name__} {out.dtype}")
    ref = np.where(np.abs(waveform.astype(np.float64)) < 15.0, 0, waveform).astype(np.int16)
    return check("zero_suppress", out, ref, 0, 0, exact=True) and to_numpy(out).dtype == np.int16


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", choices=["cuda", "cpu", "parallel"])
    p.add_argument("-n", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args()
    os.chdir(REPO)
    target, xp, why = choose_backend(args.target)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**32)
    print(f"target {target} with {xp.__name__} arrays ({why}); seed {seed}")
    rng = np.random.default_rng(seed)
    ok = all([gaussian_pdf_sample(xp, target, args.n, rng),
              polar_distance_sample(xp, target, args.n, rng),
              zero_suppress_sample(xp, target, args.n, rng)])
    print("engine counters:", jitvec.engine_stats())
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
