"""gaussian_pdf over CuPy-backed Dask chunks on every GPU of the machine (dask_cuda).

Each worker of a dask_cuda.LocalCUDACluster owns one GPU. Every chunk is made on its worker's
GPU (CuPy), the jitvec ufunc maps it there (zero-copy DLPack in and out, CuPy's stream), and a
per-chunk check against a float64 CuPy reference runs there too, so no chunk crosses PCIe.
The compiled loop comes from one shared disk cache: with --kernels-cache DIR (made by
`jitvec compile samples/gaussian_pdf.toml --cache-dir DIR`, from the repository root) the
workers read it read-only; otherwise this process compiles once into a fresh cache folder
that the workers share. Per-worker counters show that no worker compiled.

Weak scaling: each GPU holds --gib-per-gpu GiB of float32 input (and as much output); the run
is repeated with 1 GPU and with all of them (or --gpus 1,2), and the throughput of the map and
the scaling ratio are printed, with where the time went.

    python3 samples/python/dask_multi_gpu.py [--gib-per-gpu 40] [--chunk-mib 1024] [--gpus 1,2]
        [--kernels-cache kernels_cache]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFINITIONS = "samples/gaussian_pdf.toml"  # relative to REPO, as `jitvec compile` was given it
MEAN, SIGMA = 0.5, 1.25


def make_chunk(index_block, seed, length):
    import cupy
    index = int(index_block[0])
    rng = cupy.random.default_rng(seed + index)
    return rng.uniform(-5, 5, size=length, dtype=cupy.float32)


def check_chunk(x, y):
    """Elements outside tolerance, and the largest error, as a 1-element host array each."""
    import cupy
    z = (x.astype(cupy.float64) - MEAN) / SIGMA
    ref = cupy.exp(-0.5 * z * z) / (SIGMA * np.sqrt(2 * np.pi))
    err = cupy.abs(y.astype(cupy.float64) - ref)
    bad = int(cupy.count_nonzero(err > 2e-5 * ref + 1e-9))
    worst = float(err.max())
    del z, ref, err
    # The float64 temporaries are 2x a chunk: give them back, so CuPy's pool does not hold
    # device memory that the next chunk (or Dask) needs.
    cupy.get_default_memory_pool().free_all_blocks()
    return np.array([[bad, worst]])


def map_chunk(f, x):
    """One chunk through the jitvec ufunc, finished before the task is: the map's time is the
    GPU's, not only the launches' (jitvec returns as soon as the kernel is queued)."""
    import cupy
    import distributed
    t0 = time.perf_counter()
    y = f(x, MEAN, SIGMA)
    cupy.cuda.get_current_stream().synchronize()
    worker = distributed.get_worker()  # per-worker busy time: where the map's time goes
    worker.jitvec_busy_seconds = getattr(worker, "jitvec_busy_seconds", 0.0) + time.perf_counter() - t0
    return y


def run(n_gpus, args):
    import cupy
    import dask
    import dask.array as da
    import distributed
    from dask_cuda import LocalCUDACluster

    import jitvec

    devices = ",".join(str(i) for i in range(n_gpus))
    length = args.chunk_mib * 2**20 // 4
    chunks = max(1, int(args.gib_per_gpu * 2**30 // 4 // length)) * n_gpus
    n = chunks * length
    times = {}
    t0 = time.perf_counter()
    # Every chunk stays on the GPU that made it: no spilling to host (the data fits: input,
    # output and one chunk's check temporaries) and no work stealing (a stolen task would copy
    # its 1 GiB chunks across GPUs).
    dask.config.set({"distributed.scheduler.work-stealing": False})
    with LocalCUDACluster(CUDA_VISIBLE_DEVICES=devices, n_workers=n_gpus, threads_per_worker=1,
                          device_memory_limit=0, dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        times["cluster start"] = time.perf_counter() - t0
        f = jitvec.load_definitions(DEFINITIONS)["gaussian_pdf"]
        meta = cupy.empty((0,), dtype=cupy.float32)
        idx = da.arange(chunks, chunks=1)
        x = da.map_blocks(make_chunk, idx, args.seed, length, chunks=(length,), dtype=np.float32, meta=meta)
        t0 = time.perf_counter()
        x = x.persist()
        distributed.wait(x)
        times["make inputs"] = time.perf_counter() - t0
        # Warm-up: the first call on each worker loads the loop from the disk cache.
        client.run(lambda: f(cupy.ones(4, dtype=cupy.float32), MEAN, SIGMA) is not None)
        t0 = time.perf_counter()
        y = da.map_blocks(map_chunk, f, x, dtype=np.float32, meta=meta).persist()
        distributed.wait(y)
        times["map (jitvec)"] = map_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        # Blockwise: each check runs where its chunks of x and y are; one row (bad, worst) each.
        checks = da.map_blocks(check_chunk, x, y, chunks=((1,) * chunks, (2,)), new_axis=1,
                               dtype=np.float64, meta=np.empty((0, 0))).compute()
        times["check (CuPy float64)"] = time.perf_counter() - t0
        bad = int(checks[:, 0].sum())
        worst = float(checks[:, 1].max())
        stats = client.run(jitvec.engine_stats)
        busy = client.run(lambda dask_worker: getattr(dask_worker, "jitvec_busy_seconds", 0.0))
    gbytes = n * 8 / 1e9  # 4 bytes read + 4 written per element
    print(f"\n{n_gpus} GPU(s): {n} float32 ({n * 4 / 2**30:.1f} GiB in, as much out) in {chunks} chunks")
    print(f"  map: {map_seconds:.3f} s = {gbytes / map_seconds:.0f} GB/s ({n / map_seconds / 1e9:.2f} G elements/s)")
    for k, v in times.items():
        print(f"  {k:>22}: {v:8.3f} s")
    for w, s in sorted(stats.items()):
        print(f"  worker {w}: calls {s['calls']}, compiles {s['compiles']}, disk hits {s['disk_hits']}, "
              f"disk read {1e3 * s['disk_read_seconds']:.1f} ms, load {1e3 * s['load_seconds']:.1f} ms")
    for w in sorted(busy):
        print(f"  worker {w}: {busy[w]:.3f} s inside jitvec calls (call + stream sync) = "
              f"{busy[w] / map_seconds:.0%} of the map's wall time; the rest is Dask's scheduling")
    compiles = sum(s["compiles"] for s in stats.values())
    print(f"  check: {bad} elements outside tolerance (max |error| {worst:.3g}); compiles in workers: {compiles}")
    return n / map_seconds, bad == 0 and compiles == 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib-per-gpu", type=float, default=40.0)
    p.add_argument("--chunk-mib", type=int, default=1024)
    p.add_argument("--gpus", default=None, help="comma-separated GPU counts to run (default: 1 and all)")
    p.add_argument("--kernels-cache", default=None, help="a precompiled cache folder (read-only)")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args()
    os.chdir(REPO)
    args.seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    env = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
    os.environ.update(env)
    if args.kernels_cache:
        env["JITVEC_CACHE_PATH"] = os.path.abspath(args.kernels_cache)
        env["JITVEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="jitvec-worker-cache-")
    else:
        env["JITVEC_CACHE_DIR"] = os.environ.get("JITVEC_CACHE_DIR") or tempfile.mkdtemp(prefix="jitvec-dask-gpu-")
    os.environ.update(env)  # the workers inherit this environment: cache folders, NCCL settings

    import jitvec
    total = jitvec.cuda_device_count()
    if total == 0:
        sys.exit("no usable GPU")
    counts = [int(c) for c in args.gpus.split(",")] if args.gpus else sorted({1, total})
    if not args.kernels_cache:
        t0 = time.perf_counter()
        jitvec.load_definitions(DEFINITIONS)["gaussian_pdf"].precompile("cuda")
        print(f"compiled once in this process in {time.perf_counter() - t0:.2f} s into {env['JITVEC_CACHE_DIR']}")
    print(f"seed {args.seed}; {args.gib_per_gpu} GiB of input per GPU; GPUs here: {total}")
    rates, ok = {}, True
    for c in counts:
        rate, good = run(c, args)
        rates[c] = rate
        ok = ok and good
    if len(rates) > 1:
        base = rates[min(rates)]
        for c, r in sorted(rates.items()):
            print(f"scaling: {c} GPU(s) {r / 1e9:.2f} G elements/s = {r / base:.2f}x of {min(rates)} GPU(s)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
