"""A jitvec ufunc over a chunked Dask array on a LocalCluster of worker processes (CPU).

gaussian_pdf (samples/gaussian_pdf.toml) is mapped with map_blocks over N float32 values in
CHUNKS chunks (default 10^8 in 100) by W worker processes. The ufunc travels to the workers
pickled by its definition; the loop is compiled once, in this process, into the disk cache
(JITVEC_CACHE_DIR, a fresh folder unless set), and every worker only reads it: the counters
printed per worker say so. With --target parallel each worker gets cores / W threads
(JITVEC_NUM_THREADS in the workers' environment, and jitvec.set_num_threads there), so that
workers x threads never exceeds the machine's cores. The result is checked against NumPy in
float64.

    python3 samples/python/dask_cpu.py [-n N] [--chunks C] [--workers W] [--target cpu|parallel]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", type=int, default=10**8)
    p.add_argument("--chunks", type=int, default=100)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--target", choices=["cpu", "parallel"], default="cpu")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args()
    os.environ.setdefault("JITVEC_CACHE_DIR", tempfile.mkdtemp(prefix="jitvec-dask-cache-"))

    import dask.array as da
    import distributed

    import jitvec

    # From the repository root, named as `jitvec compile samples/gaussian_pdf.toml` names it.
    os.chdir(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    f = jitvec.load_definitions("samples/gaussian_pdf.toml")["gaussian_pdf"]
    t0 = time.perf_counter()
    f.precompile(args.target)  # one compile, into the shared disk cache
    print(f"compiled in this process in {time.perf_counter() - t0:.2f} s; counters {jitvec.engine_stats()}")

    # W workers x T threads <= cores: the workers inherit JITVEC_NUM_THREADS when they start.
    threads = max(1, (os.cpu_count() or 1) // args.workers)
    os.environ["JITVEC_NUM_THREADS"] = str(threads)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**32)
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        client.run(jitvec.set_num_threads, threads)  # also for workers started another way
        print(f"{args.workers} workers x {threads} jitvec threads (of {os.cpu_count()} cores): "
              f"{sorted(client.run(jitvec.get_num_threads).values())}")
        x = da.random.default_rng(seed).uniform(-5, 5, size=args.n,
                                                chunks=args.n // args.chunks).astype(np.float32)
        x = x.persist()
        distributed.wait(x)
        y = da.map_blocks(f, x, 0.5, 1.25, target=args.target, dtype=np.float32)
        t0 = time.perf_counter()
        y = y.persist()
        distributed.wait(y)
        seconds = time.perf_counter() - t0
        print(f"{args.n} elements in {args.chunks} chunks on {args.workers} worker processes: "
              f"{seconds:.2f} s ({args.n / seconds / 1e6:.0f} M elements/s, map_blocks only)")
        xs, ys = client.gather(client.compute([x, y]))
        per_worker = client.run(jitvec.engine_stats)

    for worker, stats in sorted(per_worker.items()):
        print(f"  worker {worker}: calls {stats['calls']}, compiles {stats['compiles']}, "
              f"disk hits {stats['disk_hits']}, memory hits {stats['memory_hits']}")
    z = (xs.astype(np.float64) - 0.5) / 1.25
    ref = np.exp(-0.5 * z * z) / (1.25 * np.sqrt(2 * np.pi))
    bad = int(np.count_nonzero(~np.isclose(ys, ref, rtol=2e-5, atol=1e-9)))
    compiles = sum(s["compiles"] for s in per_worker.values())
    print(f"checked {ys.size} elements against float64: {bad} outside tolerance; "
          f"compiles in workers: {compiles}")
    ok = bad == 0 and compiles == 0 and ys.size == args.n
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
