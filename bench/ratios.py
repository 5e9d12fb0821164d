#!/usr/bin/env python3
"""Reads Google Benchmark JSON output of dmlcert_bench and prints, per workload, the optimized
backend's rate and its ratios of bytes per second to the reference, Eigen, libtorch (when the binary
was built with it) and the roofline (the faster of copy and copy_nt, or of read and read_hw), each with PASS/FAIL
against the acceptance targets, and which limit the roofline measures (cache, memory, or
cache+memory). Exit status 1 when a target fails, 2 when the file cannot be read.

    python3 bench/ratios.py bench.json

Uses the medians: of the runs of each benchmark when the bench ran with --rounds (which runs a
workload's implementations in turn), or the medians Google Benchmark computed with
--benchmark_repetitions; a single run otherwise.

`control` is the optimized backend timed a second time as if it were another implementation
(bench_main.cpp), so the opt/ctl column is the ratio of the same code to itself: how far this run's
noise alone moves a ratio. Under the table, the largest such difference is the run's noise floor.

Under the table, each failed ratio is given round by round (the i-th run of the optimized backend
over the i-th run of the peer or roofline, which ran seconds apart), so that a tie whose median
fell on the wrong side of a target reads differently from a loss in every round.
"""
import json
import statistics
import sys

# The acceptance targets (README.md, "Reading the ratios").
REFERENCE_MIN = 20.0  # opt/ref, wherever the reference ran
PEER_MIN = 1.1  # opt/eigen and opt/torch, wherever the peer ran ...
PEER_BANDWIDTH_MIN = 1.0  # ... or at least this, where memory bandwidth leaves no room:
BANDWIDTH_ROOF_MIN = 0.9  # opt/roof at least this
# opt/roof targets of single workloads.
ROOFLINE_TARGETS = {
    "gather_elements_axis1": 0.3,
    "slice1_4d_mixed": 0.5,
}
# Every reduction's memory-sized variant streams at least this fraction of the read roofline.
REDUCTION_MEMORY_ROOF_MIN = 0.85
# Absolute rates: LOG_SUM_EXP at 10x the 1.4 GB/s it ran at on two cores before it was vectorized.
RATE_TARGETS_GBPS = {
    "reduce_logsumexp_axis1": 14.0,
}
MEMORY_SUFFIX = "_mem"


def load(path):
    """(context, workload -> {implementation -> bytes per second, "label" -> limit}, runs per
    median, workload -> {implementation -> [bytes per second of each round]}). One run of a
    bandwidth-bound loop moves by 10-20% on a shared machine, so a benchmark run more than once is
    represented by its median: Google Benchmark's aggregate where it computed one
    (--benchmark_repetitions), otherwise the median of the runs of the same name (--rounds)."""
    with open(path) as f:
        data = json.load(f)
    benchmarks = [b for b in data.get("benchmarks", []) if "error_occurred" not in b]
    medians = [b for b in benchmarks if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    chosen = medians if medians else [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
    runs = {}
    labels = {}
    for b in chosen:
        if "bytes_per_second" not in b:
            continue
        workload, _, impl = b["name"].partition("/")
        impl = impl.split("/")[0]
        runs.setdefault(workload, {}).setdefault(impl, []).append(b["bytes_per_second"])
        if b.get("label"):
            labels[workload] = b["label"]
    rates = {}
    most = 1
    for workload, impls in runs.items():
        entry = rates.setdefault(workload, {})
        for impl, values in impls.items():
            entry[impl] = statistics.median(values)
            if impl != "reference":
                most = max(most, len(values))
        if workload in labels:
            entry["label"] = labels[workload]
    if medians:
        most = max((b.get("repetitions", 1) for b in medians), default=1)
    rounds = {} if medians else runs
    return data.get("context", {}), rates, most, rounds


def per_round(rounds, workload, peer):
    """The optimized backend's ratio to `peer` ("roof": the faster roofline loop of that round) in
    each round where both ran, in order."""
    impls = rounds.get(workload, {})
    opt = impls.get("optimized", [])
    if peer == "roof":
        other = [roofline({k: v[i] for k, v in impls.items() if i < len(v)}) for i in range(len(opt))]
    else:
        other = impls.get(peer, [])
    return [a / b for a, b in zip(opt, other) if a and b]


def spread(r):
    """How far ratio r is from 1, as a factor >= 1 (0.9 and 1.11 are both 1.11 apart)."""
    return max(r, 1 / r)


def noise_floor(rates):
    """(largest spread of opt/control over the workloads, workload where it was, workloads with a
    control), or None when the run has no control."""
    found = [(spread(ratio(r["optimized"], r["control"])), w) for w, r in rates.items()
             if ratio(r.get("optimized"), r.get("control"))]
    if not found:
        return None
    worst, where = max(found)
    return worst, where, len(found)


def against_noise(value, need, floor):
    """How much more a failed ratio needs (need / value, as a factor, like the floor) and whether
    that is within the run's noise floor."""
    if floor is None or not value or not need:
        return ""
    short = need / value
    within = "within" if short <= floor[0] else "beyond"
    return f"; needs {percent(short)} more, {within} the noise floor"


def percent(factor):
    """A factor >= 1 as the percentage it adds: 1.111 is 11.1%. One decimal, so that a shortfall
    and the floor it is held against never print alike when they differ."""
    return f"{100 * (factor - 1):.1f}%"


def verdict(ratio, target):
    if ratio is None or target is None:
        return ""
    return "PASS" if ratio >= target else "FAIL"


def peer_verdict(vs_peer, vs_roof):
    """opt/peer >= 1.1, or (bandwidth-bound) opt/roof >= 0.9 with opt/peer >= 1.0."""
    if vs_peer is None:
        return ""
    return "PASS" if vs_peer >= PEER_MIN or vs_peer >= peer_need(vs_roof) else "FAIL"


def peer_need(vs_roof):
    """The opt/peer a workload must reach: 1.0 where it runs at the roofline, 1.1 elsewhere."""
    if vs_roof is not None and vs_roof >= BANDWIDTH_ROOF_MIN:
        return PEER_BANDWIDTH_MIN
    return PEER_MIN


def roof_target(workload):
    if workload in ROOFLINE_TARGETS:
        return ROOFLINE_TARGETS[workload]
    if workload.startswith("reduce_") and workload.endswith(MEMORY_SUFFIX):
        return REDUCTION_MEMORY_ROOF_MIN
    return None


def fmt(ratio):
    return "-" if ratio is None else f"{ratio:.2f}"


def roofline(rates):
    """The faster of the two copy rooflines, or of the two read rooflines (bench/roofline.h: which
    copy and which read loop stream faster depends on the machine and the size)."""
    for loops in (("copy", "copy_nt"), ("read", "read_hw")):
        found = [rates[k] for k in loops if k in rates]
        if found:
            return max(found)
    return None


def ratio(a, b):
    return a / b if a and b else None


def describe_cache(context):
    llc = context.get("llc_bytes")
    if llc is None:
        return "last-level cache: not reported"
    how = "detected" if context.get("llc_detected") == "true" else "not detected, assumed"
    return f"last-level cache: {int(llc) / 2**20:g} MiB ({how})"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        context, rates, runs, rounds = load(argv[1])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"ratios.py: {argv[1]}: {e}", file=sys.stderr)
        return 2
    print(describe_cache(context))
    if runs > 1:
        print(f"rates: medians of {runs} runs")
    else:
        print("rates: single runs (no --rounds or --benchmark_repetitions)")
    has_torch = any("torch" in r for r in rates.values())
    has_control = any("control" in r for r in rates.values())
    columns = [("opt/ref", 8), ("opt/eigen", 9)] + ([("opt/torch", 9)] if has_torch else []) + [("opt/roof", 8)]
    columns += [("opt/ctl", 7)] if has_control else []
    header = f"{'workload':30} {'GB/s':>7} {'':4} " + " ".join(f"{name:>{w}} {'':4}" for name, w in columns)
    header += f" {'roofline measures':<17}"
    print(header)
    print("-" * len(header))
    failures = 0
    failed_ratios = []  # (workload, peer) of each failed ratio, for the rounds below the table
    for workload, r in rates.items():
        opt = r.get("optimized")
        if opt is None:
            continue
        vs_roof = ratio(opt, roofline(r))
        cells = [(ratio(opt, r.get("reference")), verdict(ratio(opt, r.get("reference")), REFERENCE_MIN))]
        for peer in ["eigen"] + (["torch"] if has_torch else []):
            vs_peer = ratio(opt, r.get(peer))
            cells.append((vs_peer, peer_verdict(vs_peer, vs_roof)))
        cells.append((vs_roof, verdict(vs_roof, roof_target(workload))))
        if has_control:
            cells.append((ratio(opt, r.get("control")), ""))  # no target: it measures the noise
        rate_target = RATE_TARGETS_GBPS.get(workload)
        v_rate = verdict(opt / 1e9, rate_target)
        failures += [v for _, v in cells].count("FAIL") + (v_rate == "FAIL")
        peers = ["eigen"] + (["torch"] if has_torch else [])
        for (_, v), peer in zip(cells[1:], peers + ["roof"]):
            if v == "FAIL":
                failed_ratios.append((workload, peer))
        line = f"{workload:30} {opt / 1e9:7.2f} {v_rate:4} "
        line += " ".join(f"{fmt(value):>{w}} {v:4}" for (value, v), (_, w) in zip(cells, columns))
        print(line + f" {r.get('label', '-'):<17}")
    floor = noise_floor(rates)
    if floor:
        worst, where, count = floor
        print(
            f"\nnoise floor: opt/control, the same code timed twice, differed by up to "
            f"{percent(worst)} ({where}, of {count} workload{'s' if count != 1 else ''})"
        )
    shown = [(w, p, per_round(rounds, w, p)) for w, p in failed_ratios]
    shown = [(w, p, values) for w, p, values in shown if len(values) > 1]
    if shown:
        print("\nfailed ratios round by round (median first; how many rounds met the target's ratio):")
        for workload, peer, values in shown:
            r = rates[workload]
            median = ratio(r["optimized"], roofline(r) if peer == "roof" else r.get(peer))
            need = roof_target(workload) if peer == "roof" else peer_need(ratio(r["optimized"], roofline(r)))
            met = sum(v >= need for v in values) if need else 0
            print(
                f"  {workload + ' opt/' + peer:40} {statistics.median(values):.2f}: "
                + " ".join(f"{v:.2f}" for v in values)
                + (f"  ({met} of {len(values)} at {need:g} or more{against_noise(median, need, floor)})" if need else "")
            )
    print(f"\n{failures} target(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
