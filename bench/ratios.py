#!/usr/bin/env python3
"""Reads Google Benchmark JSON output of dmlcert_bench and prints, per workload, the ratios of
bytes per second: optimized/reference, optimized/eigen, optimized/torch (when the binary was built
with libtorch) and optimized/roofline (copy or read),
with PASS/FAIL against the acceptance targets. Exit status 1 when a target fails.

    python3 bench/ratios.py bench.json

Uses the medians when the run had --benchmark_repetitions, single runs otherwise.
"""
import json
import sys

# Targets (README.md): optimized at least 20x the reference everywhere, faster than Eigen where
# Eigen runs, and at least 60% of the roofline on the bandwidth-bound workloads.
REFERENCE_MIN = 20.0
EIGEN_MIN = 1.0
TORCH_MIN = 1.0
ROOFLINE_MIN = 0.60
ROOFLINE_WORKLOADS = {
    "slice_rows_step2", "slice1_reverse_rows", "slice1_reverse_cols", "scatter_nd_rows",
    "reduce_sum_axis1", "reduce_sum_axis0", "reduce_sum_all", "reduce_sum_axis1_i32",
    "reduce_sum_axis1_f16", "reduce_max_axis1",
}


def load(path):
    """workload -> implementation -> bytes per second. With --benchmark_repetitions the medians
    are used (one run of a bandwidth-bound loop moves by 10-20% on a shared machine)."""
    with open(path) as f:
        data = json.load(f)
    benchmarks = [b for b in data.get("benchmarks", []) if "error_occurred" not in b]
    medians = [b for b in benchmarks if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    chosen = medians if medians else [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
    rates = {}
    for b in chosen:
        workload, _, impl = b["name"].partition("/")
        impl = impl.split("/")[0]
        if "bytes_per_second" in b:
            rates.setdefault(workload, {})[impl] = b["bytes_per_second"]
    return rates


def verdict(ratio, target):
    if ratio is None:
        return "-"
    return "PASS" if ratio >= target else "FAIL"


def fmt(ratio):
    return "-" if ratio is None else f"{ratio:.2f}"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rates = load(argv[1])
    has_torch = any("torch" in r for r in rates.values())
    header = f"{'workload':26} {'GB/s':>7} {'opt/ref':>8} {'':4} {'opt/eigen':>9} {'':4} "
    if has_torch:
        header += f"{'opt/torch':>9} {'':4} "
    header += f"{'opt/roof':>8} {'':4}"
    print(header)
    print("-" * len(header))
    failures = 0
    for workload, r in rates.items():
        opt = r.get("optimized")
        if opt is None:
            continue
        ref = r.get("reference")
        eigen = r.get("eigen")
        torch = r.get("torch")
        vs_torch = opt / torch if torch else None
        v_torch = verdict(vs_torch, TORCH_MIN)
        roof = r.get("copy", r.get("read"))
        vs_ref = opt / ref if ref else None
        vs_eigen = opt / eigen if eigen else None
        vs_roof = opt / roof if roof else None
        v_ref = verdict(vs_ref, REFERENCE_MIN)
        v_eigen = verdict(vs_eigen, EIGEN_MIN)
        v_roof = verdict(vs_roof, ROOFLINE_MIN) if workload in ROOFLINE_WORKLOADS else ""
        failures += [v_ref, v_eigen, v_torch, v_roof].count("FAIL")
        line = f"{workload:26} {opt / 1e9:7.2f} {fmt(vs_ref):>8} {v_ref:4} {fmt(vs_eigen):>9} {v_eigen:4} "
        if has_torch:
            line += f"{fmt(vs_torch):>9} {v_torch:4} "
        print(line + f"{fmt(vs_roof):>8} {v_roof:4}")
    print(f"\n{failures} target(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
