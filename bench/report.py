#!/usr/bin/env python3
"""bench/report.py: the benchmarks' JSON as one table, target verdicts, RESULTS.md and a chart.

Reads the files written by jitvec_bench_gpu, jitvec_bench_cpu and peers.py (each
{"metadata": {...}, "records": [...]}, fields as in bench/results.hpp), prints one table (case,
system, time, GB/s, ratio to the ceiling measured in the same run, the winner of each case),
checks the targets of issues 2, 4, 5 and 14 and prints PASS or MISS for each, and writes
RESULTS.md (with a section per layout family of issue 14: jitvec, torch and CuPy side by side)
and bandwidth.png (gaussian_pdf float32, bandwidth against size, every system and
the device-copy ceiling) into --out-dir (default: this script's folder, bench/).

    python3 bench/report.py jitvec.json cpu.json peers.json [--out-dir DIR]
"""

import argparse
import json
import math
import os
import sys

# Issue 14's layout family (bench/bench_layouts.hpp, peers.py): layout_<family>_<variant>.
LAYOUT_FAMILIES = [  # (family, title, minimum ratio to the copy or None, what the ratio counts)
    ("broadcast", "N-d broadcasts", 0.90, "output once + each input's distinct elements once"),
    ("stepped", "Stepped views", 0.95, "physical bytes: a step-s float32 read moves min(4s, 32) "
     "bytes an element (32-byte sectors) + 4 written; (logical: 4 + 4) in parentheses"),
    ("permute", "Permutations", 0.85, "8 bytes an element"),
    ("mix", "Mix: permuted + broadcast + scalar into a strided out=", None,
     "x once + mean once + output once"),
    ("smalllast", "Small last dimensions", None, "8 bytes an element (+ the (d,) input)"),
]
LAYOUT_CASES = ["layout_broadcast_3d", "layout_broadcast_4d", "layout_broadcast_6d",
                "layout_stepped_last2", "layout_stepped_last3", "layout_stepped_last8",
                "layout_stepped_outer2", "layout_permute_3d_keeplast",
                "layout_permute_3d_movelast", "layout_permute_4d_keeplast",
                "layout_permute_4d_movelast", "layout_mix_gaussian", "layout_smalllast_d2",
                "layout_smalllast_d3", "layout_smalllast_d5", "layout_smalllast_d7"]
LAYOUT_PEERS = ["torch", "cupy-elementwise"]

# Case order in the table, and which way "better" goes for the winner.
CASE_ORDER = ["gaussian_pdf", "gaussian_pdf_out", "polar_distance", "zero_suppress",
              "broadcast_row_add", "broadcast_col_add", "transposed_gaussian_pdf",
              *LAYOUT_CASES, "host_gaussian_pdf", "dispatch", "dispatch_out", "graph_replay16",
              "graph_direct16", "startup_context",
              *[f"startup_{w}_{c}" for c in ("gaussian_pdf", "polar_distance", "zero_suppress", "add",
                                               "nvrtc_floor")
                for w in ("cold", "warm")],
              "cpu_gaussian_pdf_parallel", "cpu_gaussian_pdf_single",
              "threaded_copy", "memcpy_dtod", "pinned_h2d", "pinned_d2h", "bare_launch"]
STARTUP_CASES = ("gaussian_pdf", "polar_distance", "zero_suppress", "add", "nvrtc_floor")
TIME_CASES = {"dispatch", "dispatch_out", "startup_context",
              *[f"startup_{w}_{c}" for c in STARTUP_CASES for w in ("cold", "warm")],
              "bare_launch", "graph_replay16", "graph_direct16"}
REFERENCE_SYSTEMS = {"ceiling", "cuda-driver", "naive-multipass"}


def load(paths):
    """All records (each tagged with its file's tool) and the metadata of every file."""
    records, metadata = [], {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        meta = data.get("metadata", {})
        tool = meta.get("tool", os.path.basename(path))
        metadata[tool] = meta
        for r in data.get("records", []):
            r["source"] = tool
            records.append(r)
    return records, metadata


def system_label(r):
    if r["system"] in REFERENCE_SYSTEMS and r["source"] == "peers.py":
        return r["system"] + " (py run)"
    return r["system"]


def usable(r):
    return not r.get("error") and r.get("verified") is not False


def pow2(n):
    if n and n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def time_text(ms):
    if not ms or ms <= 0 or not math.isfinite(ms):
        return "-"
    if ms < 1:
        return f"{ms * 1000:.2f} us"
    if ms < 1000:
        return f"{ms:.3f} ms"
    return f"{ms / 1000:.2f} s"


def case_key(r):
    order = CASE_ORDER.index(r["case"]) if r["case"] in CASE_ORDER else len(CASE_ORDER)
    return (order, r["case"], r.get("dtype", ""), r.get("n", 0))


def winners(records):
    """(case, n, dtype) -> the best usable system there (reference systems excluded)."""
    groups = {}
    for r in records:
        if r["system"] in REFERENCE_SYSTEMS or not usable(r) or not r.get("time_ms"):
            continue
        groups.setdefault((r["case"], r["n"], r["dtype"]), []).append(r)
    best = {}
    for key, rs in groups.items():
        if key[0] in TIME_CASES or not any(r.get("gbps") for r in rs):
            best[key] = min(rs, key=lambda r: r["time_ms"])["system"]
        else:
            best[key] = max(rs, key=lambda r: r.get("gbps") or 0)["system"]
    return best


def table_rows(records):
    best = winners(records)
    rows = []
    for r in sorted(records, key=case_key):
        ratio = r.get("ratio") or 0
        ratio_text = "-"
        if ratio:
            meaning = r.get("ratio_meaning", "")
            suffix = {"gbps/ceiling_gbps": "", "time/ceiling_time": "x time",
                      "ceiling_time/time": "x faster"}.get(meaning, "")
            ratio_text = f"{ratio:.3f}{(' ' + suffix) if suffix else ''} vs {r['ceiling_name']}"
        state = ("ERROR" if r.get("error")
                 else "UNVERIFIED" if r.get("verified") is False else "")
        rows.append([r["case"], system_label(r), pow2(r.get("n", 0)), r.get("dtype", ""),
                     time_text(r.get("time_ms")), f"{r['gbps']:.1f}" if r.get("gbps") else "-",
                     ratio_text, best.get((r["case"], r["n"], r["dtype"]), ""), state])
    return rows


HEADER = ["case", "system", "n", "dtype", "time", "GB/s", "ratio to ceiling", "winner", "check"]


def error_lines(records):
    """One line per failed record: where, and the first 300 characters of why."""
    return [f"- {r['case']} / {system_label(r)} / n={pow2(r.get('n', 0))}: "
            + " ".join(str(r["error"]).split())[:300]
            for r in sorted(records, key=case_key) if r.get("error")]


def print_table(rows):
    widths = [max(len(str(x)) for x in col) for col in zip(HEADER, *rows)]
    for row in [HEADER] + rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())


def markdown_table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Targets

def find(records, case, system="jitvec", dtype=None, n=None, largest=False):
    rs = [r for r in records if r["case"] == case and r["system"] == system
          and (dtype is None or r["dtype"] == dtype) and (n is None or r["n"] == n)]
    if largest and rs:
        top = max(r["n"] for r in rs)
        rs = [r for r in rs if r["n"] == top]
    return rs[0] if rs else None


def verdict(r, passed, value_text):
    if r is None:
        return "n/a", "not measured"
    if r.get("error"):
        return "MISS", f"error: {r['error'][:120]}"
    if r.get("verified") is False:
        return "MISS", "output not verified"
    return ("PASS" if passed else "MISS"), value_text


def ratio_target(records, label, case, minimum, dtype=None, largest=True):
    r = find(records, case, dtype=dtype, largest=largest)
    ok = r is not None and (r.get("ratio") or 0) >= minimum
    text = f"{r['ratio']:.3f} (need >= {minimum}) at n={pow2(r['n'])}" if r else ""
    return (label,) + verdict(r, ok, text)


def targets(records):
    results = []
    for dtype in ("float32", "float64"):
        results.append(ratio_target(records, f"issue 2/5 case 1: gaussian_pdf {dtype} largest "
                                    f">= 0.95 of DtoD", "gaussian_pdf", 0.95, dtype))
    results.append(ratio_target(records, "case 2: polar_distance >= 0.95 of DtoD",
                                "polar_distance", 0.95))
    results.append(ratio_target(records, "case 3: zero_suppress int16 >= 0.95 of DtoD",
                                "zero_suppress", 0.95))
    for case in ("broadcast_row_add", "broadcast_col_add"):
        results.append(ratio_target(records, f"case 4: {case} >= 0.90 of DtoD", case, 0.90))
    results.append(ratio_target(records, "case 5: transposed input >= 0.60 of DtoD",
                                "transposed_gaussian_pdf", 0.60))
    results.append(ratio_target(records, "case 6: host arrays >= 0.70 of pinned H2D+D2H",
                                "host_gaussian_pdf", 0.70))
    for case in ("dispatch", "dispatch_out"):
        r = find(records, case)
        ok = r is not None and 0 < (r.get("ratio") or 0) <= 1.5
        text = (f"{r['time_ms'] * 1000:.2f} us = {r['ratio']:.2f}x a bare launch (need <= 1.5x)"
                if r else "")
        results.append((f"issue 2/case 7: {case} host cost <= 1.5x bare cuLaunchKernel",)
                       + verdict(r, ok, text))
        peers = [p for p in records if p["case"] == case and p["system"].startswith("cupy")
                 and usable(p) and p.get("time_ms")]
        if r is not None and peers:
            fastest = min(peers, key=lambda p: p["time_ms"])
            speedup = fastest["time_ms"] / r["time_ms"] if r.get("time_ms") else 0
            results.append((f"case 7: {case} >= 2x faster than CuPy",)
                           + verdict(r, speedup >= 2.0,
                                     f"{speedup:.2f}x faster than {fastest['system']} "
                                     f"({fastest['time_ms'] * 1000:.2f} us)"))
        else:
            results.append((f"case 7: {case} >= 2x faster than CuPy", "n/a",
                            "no CuPy figure" if r is not None else "not measured"))
    results += startup_targets(records)
    results.append(ratio_target(records, "issue 4: parallel >= 0.8 of a threaded copy",
                                "cpu_gaussian_pdf_parallel", 0.8))
    results.append(ratio_target(records, "issue 4: cpu >= 2x faster than naive multi-pass",
                                "cpu_gaussian_pdf_single", 2.0))
    results += cpu_runs_targets(records)
    return (results + layout_targets(records) + graph_targets(records) + gufunc_targets(records)
            + dtype_targets(records) + fusion_targets(records) + multi_output_targets(records)
            + reduce_targets(records) + derivative_targets(records))


def startup_targets(records):
    """Issue 24: the first result of each sample's first call in a fresh process (NVRTC's cache
    off), cold (empty jitvec cache) and warm (the cache a cold run filled), against CuPy's cold
    ElementwiseKernel under the same policy; the cache a contiguous float32 call leaves."""
    results = []
    for case, limit in (("gaussian_pdf", 150), ("zero_suppress", 150), ("polar_distance", 300),
                        ("add", 60)):
        r = find(records, f"startup_cold_{case}")
        ms = (r or {}).get("time_ms") or 0
        text = f"{ms:.1f} ms (need <= {limit})" if r else ""
        ok = r is not None and 0 < ms <= limit
        # CuPy's ElementwiseKernel making the same call (bench/peers.py); a run without that
        # row cannot say "below CuPy's", so it misses.
        cupy = find(records, f"startup_cold_{case}", system="cupy-elementwise")
        if cupy is not None and usable(cupy):
            text += f"; CuPy ElementwiseKernel cold {cupy['time_ms']:.1f} ms"
            ok = ok and ms < cupy["time_ms"]
        else:
            text += "; CuPy's row of this case not measured"
            ok = False
        results.append((f"issue 24: cold first result of {case} <= {limit} ms and below CuPy's",)
                       + verdict(r, ok, text))
    # The floor (NVRTC and the driver alone, the add case's kernel in one line): what jitvec's
    # own part of a first call costs above it.
    for mode in ("cold", "warm"):
        floor = find(records, f"startup_{mode}_nvrtc_floor", system="ceiling")
        add = find(records, f"startup_{mode}_add")
        if floor is not None and add is not None and usable(floor) and usable(add):
            results.append((f"issue 24: {mode} add against the NVRTC+driver floor (information)", "INFO",
                            f"add {add['time_ms']:.3f} ms, floor {floor['time_ms']:.3f} ms, jitvec's own "
                            f"{add['time_ms'] - floor['time_ms']:.3f} ms"))
    r = find(records, "startup_warm_gaussian_pdf")
    ms = (r or {}).get("time_ms") or 0
    results.append(("issue 24: warm first result of gaussian_pdf <= 0.6 ms",)
                   + verdict(r, r is not None and 0 < ms <= 0.6, f"{ms:.3f} ms" if r else ""))
    r = find(records, "startup_warm_gaussian_pdf")
    size = ((r or {}).get("extra") or {}).get("cache_largest_entry")
    results.append(("issue 24: cache entry of a contiguous float32 call <= 48 KB",)
                    + (verdict(r, size is not None and size <= 48 * 1024,
                               f"{size / 1024:.1f} KB" if size is not None else "not recorded")))
    return results


def baseline_lines(records, baseline):
    """Issue 24: every bandwidth row (ratio to its ceiling) and dispatch row (time) of this run
    against the same row of a baseline build measured in the same session."""
    lines = ["## Against the baseline build (same session)", "",
             "| case | n | dtype | baseline | this build | change |", "|---|---|---|---|---|---|"]
    worst = []
    old = {(r["case"], r["n"], r["dtype"]): r for r in baseline if r["system"] == "jitvec" and usable(r)}
    for r in records:
        if r["system"] != "jitvec" or not usable(r) or r["case"].startswith("startup"):
            continue
        b = old.get((r["case"], r["n"], r["dtype"]))
        if b is None:
            continue
        if r["case"] in TIME_CASES:
            if not r.get("time_ms") or not b.get("time_ms"):
                continue
            new_v, old_v, change = r["time_ms"] * 1e3, b["time_ms"] * 1e3, b["time_ms"] / r["time_ms"] - 1
            unit = " us"
        else:
            if not r.get("ratio") or not b.get("ratio"):
                continue
            new_v, old_v, change = r["ratio"], b["ratio"], r["ratio"] / b["ratio"] - 1
            unit = ""
        worst.append((change, r["case"], r["n"]))
        lines.append(f"| {r['case']} | {pow2(r['n'])} | {r['dtype']} | {old_v:.3f}{unit} | "
                     f"{new_v:.3f}{unit} | {change * 100:+.1f}% |")
    worst.sort()
    if worst:
        lines += ["", f"{len(worst)} rows; the largest loss {worst[0][0] * 100:+.1f}% "
                  f"({worst[0][1]} at n={pow2(worst[0][2])}); "
                  f"{sum(1 for w in worst if w[0] < -0.02)} rows lost more than 2%", ""]
    return lines


def cpu_runs_targets(records):
    """Issue 14: the parallel target >= 0.85 of a threaded copy in each of several runs
    (jitvec_bench_cpu --repeat N keeps every run's ratio as run<k>_ratio)."""
    results = []
    for case, what in (("cpu_gaussian_pdf_parallel", "contiguous"),
                       ("cpu_gaussian_pdf_parallel_bcast2d", "2-D broadcast")):
        r = find(records, case)
        runs = sorted(((k, v) for k, v in ((r or {}).get("extra") or {}).items()
                       if k.startswith("run") and k.endswith("_ratio")),
                      key=lambda kv: int(kv[0][3:-6]))
        label = f"issue 14: parallel {what} >= 0.85 of a threaded copy in each of 5 runs"
        if r is None or len(runs) < 5:
            results.append((label,) + (verdict(r, False, f"{len(runs)} runs recorded (need 5)")
                                       if r is not None else ("n/a", "not measured")))
            continue
        ok = all(v >= 0.85 for _, v in runs)
        results.append((label,) + verdict(r, ok, ", ".join(f"{v:.3f}" for _, v in runs)))
    return results


def reduce_targets(records):
    """Issue 11: reduce and accumulate (bench_reduce.hpp) against the copy of their bytes, with
    the fastest CuPy/PyTorch figure of the same case beside it."""
    results = []
    for label, case, minimum in (
            ("issue 11: add.reduce 2^28 float32, all axes >= 0.90 of DtoD (bytes read)", "reduce_sum_all_f32", 0.90),
            ("issue 11: add.reduce 2^14 x 2^14 along axis 1 >= 0.85 of DtoD", "reduce_rows_f32", 0.85),
            ("issue 11: add.reduce 2^14 x 2^14 along axis 0 >= 0.85 of DtoD", "reduce_cols_f32", 0.85),
            ("issue 11: add.accumulate 2^28 float32 >= 0.70 of DtoD", "accumulate_f32", 0.70)):
        r = find(records, case, largest=True)
        value = (r.get("ratio") or 0.0) if r is not None else 0.0
        peers = [p for p in records if p["case"] == case and p["system"] != "jitvec" and usable(p)
                 and p.get("time_ms") and r is not None and p["n"] == r["n"]]
        text = f"{value:.3f} (need >= {minimum}) at n={pow2(r['n'])}" if r else ""
        if r is not None and (r.get("extra") or {}).get("ratio_traffic"):
            text += f" (its own 12 B/element traffic: {r['extra']['ratio_traffic']:.3f} of DtoD)"
        if peers:
            best = min(peers, key=lambda p: p["time_ms"])
            text += f"; fastest peer {best['system']} {best['ratio']:.3f}"
        results.append((label,) + verdict(r, r is not None and value >= minimum, text))
    results.append(ratio_target(records, "issue 11: parallel sum-reduce >= 0.8 of a threaded read-only sweep",
                                "cpu_sum_reduce_parallel", 0.8))
    return results


def dtype_targets(records):
    """Issue 10: float16 gaussian_pdf and complex64 z * conj(z) + c (bench_dtypes.hpp) against
    the copy, with the fastest CuPy/PyTorch figure of the same case beside it."""
    results = []
    for label, case in (("issue 10: gaussian_pdf float16 2^28 >= 0.95 of DtoD", "dtype_gaussian_float16"),
                        ("issue 10: z * conj(z) + c complex64 2^27 >= 0.95 of DtoD", "dtype_zz_complex64")):
        r = find(records, case, largest=True)
        peers = [p for p in records if p["case"] == case and p["system"] != "jitvec" and usable(p)
                 and p.get("ratio") and r is not None and p["n"] == r["n"]]
        text = f"{r['ratio']:.3f} (need >= 0.95) at n={pow2(r['n'])}" if r else ""
        if peers:
            best = max(peers, key=lambda p: p["ratio"])
            text += f"; best peer {best['system']} {best['ratio']:.3f}"
        results.append((label,) + verdict(r, r is not None and (r.get("ratio") or 0) >= 0.95, text))
    return results


def multi_output_targets(records):
    """Issue 10: a sincos-style ufunc of two outputs (bench_multi_output.hpp) against the copy of
    its bytes (4 read + 8 written an element), with the best CuPy/PyTorch figure beside it."""
    case = "multi_output_sincos_f32"
    r = find(records, case, largest=True)
    peers = [p for p in records if p["case"] == case and p["system"] != "jitvec" and usable(p)
             and p.get("ratio") and r is not None and p["n"] == r["n"]]
    text = f"{r['ratio']:.3f} (need >= 0.95) at n={pow2(r['n'])}" if r else ""
    if peers:
        best = max(peers, key=lambda p: p["ratio"])
        text += f"; best peer {best['system']} {best['ratio']:.3f}"
    return [("issue 10: sincos 1 -> 2 outputs float32 2^28 >= 0.95 of DtoD",)
            + verdict(r, r is not None and (r.get("ratio") or 0) >= 0.95, text)]


def derivative_targets(records):
    """Issue 30: gaussian_pdf's forward-mode derivative d/dx (bench_derivative.hpp) against the
    copy of its bytes (4 read + 4 written an element)."""
    r = find(records, "derivative_gaussian_pdf", largest=True)
    text = f"{r['ratio']:.3f} (need >= 0.95) at n={pow2(r['n'])}" if r else ""
    return [("issue 30: derivative of gaussian_pdf float32 2^28 >= 0.95 of DtoD",)
            + verdict(r, r is not None and (r.get("ratio") or 0) >= 0.95, text)]


def gufunc_targets(records):
    """Issue 11: outer (write-bound) and the gufunc dot n = 16 (bench_gufunc.hpp), against the
    copy, with the fastest CuPy/PyTorch figure of the same case beside it."""
    results = []
    for label, case, minimum, key in (
            ("issue 11: multiply.outer 2^14 x 2^14 float32 >= 0.90 of DtoD", "gufunc_outer_f32", 0.90, "ratio"),
            ("issue 11: gufunc dot n=16 on 2^24 rows >= 0.85 of DtoD (bytes read)", "gufunc_dot_n16", 0.85, "ratio_read")):
        r = find(records, case, largest=True)
        value = 0.0
        if r is not None:
            value = (r.get("ratio") or 0.0) if key == "ratio" else (r.get("extra") or {}).get(key, 0.0)
        peers = [p for p in records if p["case"] == case and p["system"] != "jitvec" and usable(p)
                 and p.get("time_ms") and r is not None and p["n"] == r["n"]]
        text = f"{value:.3f} (need >= {minimum}) at n={pow2(r['n'])}" if r else ""
        if peers:
            best = min(peers, key=lambda p: p["time_ms"])
            text += f"; fastest peer {best['system']} {best['ratio']:.3f}"
        results.append((label,) + verdict(r, r is not None and value >= minimum, text))
    return results


def fusion_targets(records):
    """Issue 13: fused chains (bench_fusion.hpp, peers_fusion.py): the fused call against the
    three separate jitvec calls (>= 2.5x) and against three CuPy ElementwiseKernels (>= 5x)."""
    results = []
    for chain in ("chain3", "chain3_wide"):
        fused = find(records, f"fusion_{chain}_fused", largest=True)
        r = find(records, f"fusion_{chain}_speedup", largest=True)
        text = ""
        if r is not None and r.get("ratio"):
            text = (f"{r['ratio']:.2f}x (need >= 2.5; the bytes allow "
                    f"{(r.get('extra') or {}).get('ideal_speedup', 0):.1f}x)")
            if fused is not None:
                text += f"; fused at {fused['ratio']:.3f} of DtoD"
        results.append((f"issue 13: fused {chain} >= 2.5x the three separate jitvec calls",)
                       + verdict(r, r is not None and (r.get("ratio") or 0) >= 2.5, text))
        cupy = find(records, f"fusion_{chain}_separate", system="cupy-elementwise", largest=True)
        ok, text = False, "no CuPy figure"
        if fused is not None and cupy is not None and usable(cupy) and fused.get("time_ms"):
            speedup = cupy["time_ms"] / fused["time_ms"]
            ok = speedup >= 5.0
            text = (f"{speedup:.2f}x (need >= 5) against three ElementwiseKernels "
                    f"({cupy['time_ms']:.2f} ms)")
            hand = find(records, f"fusion_{chain}_fused", system="cupy-handfused", largest=True)
            if hand is not None and usable(hand) and hand.get("time_ms"):
                text += f"; CuPy fused by hand {hand['time_ms']:.2f} ms"
        results.append((f"issue 13: fused {chain} >= 5x CuPy ElementwiseKernels",)
                       + (verdict(fused, ok, text) if cupy is not None else ("n/a", text)))
    return results


def graph_targets(records):
    """Issue 13: captured graphs (bench_graph.hpp) and the cheaper dispatch."""
    results = []
    r = find(records, "graph_replay16")
    text = ""
    if r is not None and r.get("time_ms"):
        direct = r.get("ceiling_time_ms") or 0
        text = (f"{r['time_ms'] * 1000:.2f} us per call "
                f"({(r.get('extra') or {}).get('replay_us', 0):.1f} us a replay of 16); direct "
                f"calls {direct * 1000:.2f} us per call (need <= 1 us)")
    ok = r is not None and 0 < (r.get("time_ms") or 0) <= 0.001
    results.append(("issue 13: 16 captured calls replay in <= 1 us of host time per call",)
                   + verdict(r, ok, text))
    for case in ("dispatch", "dispatch_out"):
        r = find(records, case)
        ok = r is not None and 0 < (r.get("ratio") or 0) <= 1.25
        text = (f"{r['time_ms'] * 1000:.2f} us = {r['ratio']:.2f}x a bare launch (need <= 1.25x)"
                if r else "")
        results.append((f"issue 13: {case} host cost <= 1.25x bare cuLaunchKernel",)
                       + verdict(r, ok, text))
    return results


# ---------------------------------------------------------------------------------------------
# Layouts (issue 14)

def layout_family(case):
    """'broadcast' for layout_broadcast_3d; None for a case outside the family."""
    parts = case.split("_")
    return parts[1] if len(parts) >= 3 and parts[0] == "layout" else None


def layout_cases(records, family):
    """The family's cases that any system measured, in LAYOUT_CASES order (others after)."""
    names = {r["case"] for r in records if layout_family(r["case"]) == family}
    known = [c for c in LAYOUT_CASES if c in names]
    return known + sorted(names - set(known))


def layout_targets(records):
    """Per family: every case's ratio >= the family's minimum (where the issue sets one), and
    every case faster than each peer that measured it (by median time)."""
    results = []
    for family, title, minimum, _ in LAYOUT_FAMILIES:
        cases = layout_cases(records, family)
        mine = [find(records, c) for c in cases]
        if not cases or any(r is None for r in mine):
            missing = [c for c, r in zip(cases, mine) if r is None]
            detail = f"no jitvec record for {', '.join(missing)}" if missing else "not measured"
            if minimum is not None:
                results.append((f"issue 14: every {family} case >= {minimum} of DtoD", "n/a",
                                detail))
            results.append((f"issue 14: every {family} case faster than torch and CuPy", "n/a",
                            detail))
            continue
        broken = [r for r in mine if not usable(r)]
        if minimum is not None:
            label = f"issue 14: every {family} case >= {minimum} of DtoD" + (
                " (physical ideal)" if family == "stepped" else "")
            if broken:
                results.append((label, "MISS", f"{broken[0]['case']}: "
                                + (f"error: {str(broken[0]['error'])[:100]}"
                                   if broken[0].get("error") else "output not verified")))
            else:
                worst = min(mine, key=lambda r: r.get("ratio") or 0)
                results.append((label, "PASS" if (worst.get("ratio") or 0) >= minimum else "MISS",
                                f"lowest {worst.get('ratio') or 0:.3f} ({worst['case']}); "
                                + ", ".join(f"{r.get('ratio') or 0:.2f}" for r in mine)))
        label = f"issue 14: every {family} case faster than torch and CuPy"
        margins = []  # (peer time / jitvec time, case, peer)
        for r in mine:
            for peer in LAYOUT_PEERS:
                p = find(records, r["case"], system=peer)
                if p is not None and usable(p) and p.get("time_ms") and r.get("time_ms"):
                    margins.append((p["time_ms"] / r["time_ms"], r["case"], peer))
        if broken:
            results.append((label, "MISS", f"{broken[0]['case']}: jitvec's record is unusable"))
        elif not margins:
            results.append((label, "n/a", "no torch or CuPy figure"))
        else:
            peers_seen = sorted({peer for _, _, peer in margins})
            worst = min(margins)
            results.append((label, "PASS" if worst[0] > 1.0 else "MISS",
                            f"closest: {worst[0]:.2f}x faster than {worst[2]} at {worst[1]} "
                            f"(peers measured: {', '.join(peers_seen)})"))
    return results


def layout_cell(r, family):
    if r is None:
        return "-"
    if r.get("error"):
        return "ERROR"
    if r.get("verified") is False:
        return "UNVERIFIED"
    text = f"{r.get('ratio') or 0:.3f}"
    logical = (r.get("extra") or {}).get("ratio_logical")
    if family == "stepped" and logical:
        text += f" ({logical:.3f})"
    return text


def layout_sections(records, verdicts):
    """RESULTS.md's 'Layouts (issue 14)' section: a table per family, then its target rows."""
    if not any(layout_family(r["case"]) for r in records):
        return []
    best = winners(records)
    text = ["## Layouts (issue 14)", "",
            "float32, about 2^28 outputs (2^28/s for x[::s]), every call into a preallocated "
            "out=. Each cell is the ratio of the system's bandwidth, counting the bytes an ideal "
            "kernel must move, to a device-to-device copy of as many bytes measured in the same "
            "process (jitvec: jitvec_bench_gpu; torch and CuPy: peers.py), so 1.0 is memory "
            "speed. ERROR or UNVERIFIED: the output did not match its float64 reference. The "
            "cases and views are in bench/bench_layouts.hpp; each record's method says more.",
            ""]
    for family, title, minimum, ideal in LAYOUT_FAMILIES:
        cases = layout_cases(records, family)
        if not cases:
            continue
        text += [f"### {title}", "", f"Ideal bytes: {ideal}."
                 + (f" Target: every case >= {minimum}." if minimum else ""), "",
                 "| case | n | jitvec | " + " | ".join(LAYOUT_PEERS) + " | winner |",
                 "|---|---|---|" + "---|" * len(LAYOUT_PEERS) + "---|"]
        for case in cases:
            r = find(records, case)
            any_r = r or next(x for x in records if x["case"] == case)
            cells = [layout_cell(find(records, case, system=s), family)
                     for s in ["jitvec"] + LAYOUT_PEERS]
            text.append(f"| {case} | {pow2(any_r.get('n', 0))} | " + " | ".join(cells)
                        + f" | {best.get((case, any_r['n'], any_r['dtype']), '')} |")
        text.append("")
    rows = [v for v in verdicts if v[0].startswith("issue 14:")]
    if rows:
        text += ["### Targets of issue 14", "", "| target | verdict | measured |", "|---|---|---|"]
        text += [f"| {label} | {v} | {detail} |" for label, v, detail in rows]
        text.append("")
    return text


# ---------------------------------------------------------------------------------------------
# Outputs

def environment_lines(metadata):
    gpu = metadata.get("jitvec_bench_gpu", {})
    cpu = metadata.get("jitvec_bench_cpu", {})
    py = metadata.get("peers.py", {})
    lines = []
    date = gpu.get("date") or cpu.get("date") or py.get("date")
    if date:
        lines.append(f"- date: {date}")
    if gpu.get("skipped"):
        lines.append(f"- jitvec_bench_gpu skipped: {gpu['skipped']}")
    if gpu.get("gpu") or py.get("gpu"):
        lines.append(f"- GPU: {gpu.get('gpu') or py.get('gpu')}"
                     + (f" (compute capability {gpu['compute_capability']}, {gpu.get('sm_count')} "
                        f"SMs, L2 {int(gpu.get('l2_bytes', 0)) >> 20} MB)"
                        if gpu.get("compute_capability") else ""))
    if gpu.get("nvidia_driver"):
        lines.append(f"- driver: {gpu['nvidia_driver']}")
    if gpu.get("cuda_driver_api"):
        lines.append(f"- CUDA: driver API {gpu['cuda_driver_api']}, toolkit "
                     f"{gpu.get('cuda_toolkit')}, {gpu.get('nvrtc')}")
    if py.get("cuda_runtime"):
        lines.append(f"- CuPy's CUDA: runtime {py['cuda_runtime']}, driver "
                     f"{py.get('cuda_driver_api')}, NVRTC {py.get('nvrtc')}")
    jitvec_version = gpu.get("jitvec") or cpu.get("jitvec")
    if jitvec_version:
        compiler = gpu.get("bench_compiler") or cpu.get("bench_compiler")
        lines.append(f"- jitvec {jitvec_version} (benchmarks built with {compiler})")
    if py:
        versions = ", ".join(f"{k} {py[k]}" for k in ("python", "numpy", "cupy", "numba",
                                                       "numba_cuda", "scipy", "torch") if k in py)
        lines.append(f"- peers: {versions}")
    if cpu:
        lines.append(f"- CPU: {cpu.get('cpu')}, {cpu.get('threads')} threads; host compiler for "
                     f"the cpu targets: {cpu.get('host_compiler')}")
    return lines


def write_chart(records, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        print(f"no chart: matplotlib is unavailable ({exc})")
        return False
    series = {}
    for r in records:
        if r["case"] == "gaussian_pdf" and r["dtype"] == "float32" and usable(r) and r.get("gbps"):
            series.setdefault(r["system"], []).append((r["n"], r["gbps"]))
    ceiling = sorted((r["n"], r["ceiling_gbps"]) for r in records
                     if r["case"] == "gaussian_pdf" and r["dtype"] == "float32"
                     and r["system"] == "jitvec" and r.get("ceiling_gbps"))
    if not series:
        print("no chart: no gaussian_pdf float32 records")
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for system, points in sorted(series.items()):
        points.sort()
        ax.plot([n for n, _ in points], [g for _, g in points], marker="o", label=system)
    if ceiling:
        ax.plot([n for n, _ in ceiling], [g for _, g in ceiling], linestyle="--", color="black",
                label="cuMemcpyDtoD, same bytes")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("elements (float32)")
    ax.set_ylabel("GB/s (bytes read + written / time)")
    ax.set_title("gaussian_pdf, float32 device arrays")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write_results(path, metadata, records, rows, errors, verdicts, chart, baseline=None):
    passed = sum(1 for _, v, _ in verdicts if v == "PASS")
    missed = sum(1 for _, v, _ in verdicts if v == "MISS")
    text = ["# Benchmark results", ""]
    text += environment_lines(metadata)
    text += ["", "Every ratio compares with a ceiling measured in the same run (device-to-device "
             "copy of the same bytes, pinned host copies, a bare cuLaunchKernel, a threaded "
             "memcpy, a naive multi-pass loop). Times are medians; GPU kernels are timed with "
             "CUDA events around each call, host costs with the host clock. Every output was "
             "checked against a float64 reference (a row marked UNVERIFIED or ERROR was not).",
             "", "## Targets", "", f"{passed} PASS, {missed} MISS", "",
             "| target | verdict | measured |", "|---|---|---|"]
    text += [f"| {label} | {v} | {detail} |" for label, v, detail in verdicts]
    text += [""] + layout_sections(records, verdicts)
    if baseline:
        text += baseline_lines(records, baseline)
    text += ["## All measurements", "", markdown_table(rows), ""]
    if errors:
        text += ["## Errors", ""] + errors + [""]
    if chart:
        text += ["## gaussian_pdf float32 bandwidth", "", "![bandwidth](bandwidth.png)", ""]
    with open(path, "w") as f:
        f.write("\n".join(text))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="JSON files from the benchmarks")
    parser.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)),
                        help="where RESULTS.md and bandwidth.png go (default: bench/)")
    parser.add_argument("--baseline", help="a jitvec_bench_gpu JSON of an earlier build, measured "
                        "in the same session: RESULTS.md compares every row with it")
    args = parser.parse_args()
    records, metadata = load(args.files)
    baseline = load([args.baseline])[0] if args.baseline else None
    if baseline:
        print("\n".join(baseline_lines(records, baseline)))
    for tool, meta in metadata.items():
        if meta.get("skipped"):
            print(f"{tool} was skipped: {meta['skipped']}")
    rows = table_rows(records)
    print_table(rows)
    errors = error_lines(records)
    if errors:
        print("\nerrors:")
        print("\n".join(errors))
    print()
    verdicts = targets(records)
    width = max(len(label) for label, _, _ in verdicts)
    for label, v, detail in verdicts:
        print(f"{v:<4}  {label.ljust(width)}  {detail}")
    passed = sum(1 for _, v, _ in verdicts if v == "PASS")
    missed = sum(1 for _, v, _ in verdicts if v == "MISS")
    print(f"\n{passed} PASS, {missed} MISS, {len(verdicts) - passed - missed} not measured")
    os.makedirs(args.out_dir, exist_ok=True)
    chart = write_chart(records, os.path.join(args.out_dir, "bandwidth.png"))
    write_results(os.path.join(args.out_dir, "RESULTS.md"), metadata, records, rows, errors,
                  verdicts, chart, baseline)
    print(f"wrote {os.path.join(args.out_dir, 'RESULTS.md')}"
          + (f" and {os.path.join(args.out_dir, 'bandwidth.png')}" if chart else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
