#!/usr/bin/env python3
"""bench/peers_graph.py: issue 13's graph cases (bench/bench_graph.hpp) through CuPy.

Systems:
  cupy-elementwise  the 16 chained calls made directly with cupy.ElementwiseKernel
                    (case graph_direct16)
  cupy-graph        the same calls captured once with cupy.cuda.Stream.begin_capture /
                    end_capture and replayed with Graph.launch (case graph_replay16)

The chain is bench_graph.cpp's: 1024 float32 elements, call k reads call k-1's output, even
calls gaussian_pdf(prev, MEAN, SIGMA), odd calls add(prev, x), every call into its own
preallocated output, on a created (non-blocking) stream. Time: host time per ufunc call
(time.perf_counter), 20 batches of 30 x 16 calls back to back, the stream synchronised between
batches, median of batch averages; a replay counts as 16 calls and its batches alternate with
the direct calls' batches, as in the C++ benchmark. Every stage is checked against NumPy
float64 computed from the previous stage's device result, after the outputs are poisoned (NaN).
A system that fails is recorded as an error record and the rest goes on. The JSON schema and the
flags are bench/peers.py's.

    python3 bench/peers_graph.py [--json FILE] [--quick]
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (record, checks and metadata shared with bench/peers.py)

N = 1024
CALLS = 16
BATCHES = 20
REPLAYS_PER_BATCH = 30


class Chain:
    def __init__(self, cp, x_host):
        self.cp = cp
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.gaussian = cp.ElementwiseKernel(
            "T x, T mean, T sigma", "T y",
            "const T z = (x - mean) / sigma;"
            " y = exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));",
            "bench_graph_gaussian_pdf")
        self.add = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b",
                                        "bench_graph_add")
        self.x_host = x_host
        with self.stream:
            self.x = cp.asarray(x_host)
            self.t = [cp.empty(N, dtype=np.float32) for _ in range(CALLS)]
        self.mean, self.sigma = np.float32(peers.MEAN), np.float32(peers.SIGMA)

    def calls(self):
        with self.stream:
            for k in range(CALLS):
                prev = self.x if k == 0 else self.t[k - 1]
                if k % 2 == 0:
                    self.gaussian(prev, self.mean, self.sigma, self.t[k])
                else:
                    self.add(prev, self.x, self.t[k])

    def poison(self):
        with self.stream:
            for t in self.t:
                t.fill(np.nan)
        self.stream.synchronize()

    def check(self):
        """Every stage against float64 from the previous stage's device values."""
        cp = self.cp
        self.stream.synchronize()
        prev = self.x_host
        total = dict(passed=True, checked=0, max_abs_error=0.0, max_rel_error=0.0)
        for k in range(CALLS):
            got = self.t[k]
            if k % 2 == 0:
                want = peers.gaussian_reference(prev)
                tol = peers.TOL_GAUSS32
            else:
                want = prev.astype(np.float64) + self.x_host.astype(np.float64)
                tol = peers.TOL_ADD32
            result = peers.check_output(cp, got, N, lambda _idx, w=want: w, tol)
            total["checked"] += result.get("checked", 0)
            for key in ("max_abs_error", "max_rel_error"):
                total[key] = max(total[key], result.get(key, 0.0))
            if not result["passed"] and total["passed"]:
                total["passed"] = False
                total["detail"] = f"stage {k}: {result.get('detail', 'output mismatch')}"
            prev = cp.asnumpy(got)
        return total


def host_us_interleaved(stream, a, b, batches=BATCHES, calls=REPLAYS_PER_BATCH):
    """Per-batch-average host microseconds of a() and b(), their batches alternating."""
    def batch(f):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        us = (time.perf_counter() - t) * 1e6 / calls
        stream.synchronize()
        return us

    batch(a)
    batch(b)
    per_a, per_b = [], []
    for _ in range(batches):
        per_a.append(batch(a))
        per_b.append(batch(b))
    return statistics.median(per_a), statistics.median(per_b)


def run(cp, seed, records):
    rng = np.random.default_rng(seed)
    x_host = rng.uniform(-3.0, 3.0, N).astype(np.float32)
    method = (f"host time per ufunc call: {BATCHES} batches of {REPLAYS_PER_BATCH} x {CALLS} "
              f"chained calls (1024 float32, into preallocated outputs) back to back on a "
              f"created stream, median of batch averages; replay and direct batches alternate")
    direct = peers.record("graph_direct16", "cupy-elementwise", N, "float32")
    replay = peers.record("graph_replay16", "cupy-graph", N, "float32")
    try:
        chain = Chain(cp, x_host)
        chain.calls()  # compiled and loaded before timing or capturing
        chain.stream.synchronize()
    except Exception as exc:
        for r in (direct, replay):
            r["error"] = peers.error_text(exc)
        records.extend([direct, replay])
        return

    graph = None
    try:
        chain.stream.begin_capture()
        try:
            chain.calls()
        finally:
            graph = chain.stream.end_capture()
    except Exception as exc:
        replay["error"] = peers.error_text(exc)
        traceback.print_exc()

    if graph is not None:
        replay_us, direct_us = host_us_interleaved(
            chain.stream, lambda: graph.launch(chain.stream), chain.calls)
        replay["time_ms"] = replay_us / CALLS / 1000.0
        replay["method"] = "cupy.cuda.Graph.launch of the 16 captured calls; " + method
        replay["extra"]["replay_us"] = replay_us
        replay["ceiling_name"] = "direct_calls"
        replay["ceiling_time_ms"] = direct_us / CALLS / 1000.0
        replay["ratio"] = replay["time_ms"] / replay["ceiling_time_ms"]
        replay["ratio_meaning"] = "time/ceiling_time"
        chain.poison()
        graph.launch(chain.stream)
        peers.note_check(replay, chain.check())
    else:
        direct_us = peers.Gpu(cp).host_us_per_call(chain.calls)[0]

    direct["time_ms"] = direct_us / CALLS / 1000.0
    direct["method"] = "the same 16 calls made directly with cupy.ElementwiseKernel; " + method
    try:
        chain.poison()
        chain.calls()
        peers.note_check(direct, chain.check())
    except Exception as exc:
        direct["error"] = peers.error_text(exc)
    records.extend([direct, replay])
    for r in (direct, replay):
        print(f"  {r['case']:<16} {r['system']:<18} {r['time_ms'] * 1000:8.3f} us/call "
              f"{'verified' if r['verified'] else 'ERROR: ' + str(r['error'])}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--quick", action="store_true",
                        help="accepted for the same flags as peers.py (the cases are small)")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    output = dict(metadata=dict(tool="peers_graph.py", date=started), records=[])
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"peers_graph.py: no usable CuPy/GPU, skipping: {peers.error_text(exc)}")
        output["metadata"]["skipped"] = peers.error_text(exc)
    else:
        output["metadata"] = peers.metadata(cp, started)
        output["metadata"]["tool"] = "peers_graph.py"
        try:
            run(cp, args.seed, output["records"])
        except Exception as exc:  # keep what was measured
            output["records"].append(peers.record("run", "peers_graph", 0, "-",
                                                  error=peers.error_text(exc)))
            traceback.print_exc()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
