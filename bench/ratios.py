#!/usr/bin/env python3
"""Reads Google Benchmark JSON output of dmlcert_bench and prints, per workload, the optimized
backend's rate and its ratios of bytes per second to the reference, Eigen, libtorch (when the binary
was built with it) and the roofline (the faster of copy and copy_nt, or of read and read_hw), each
judged against the acceptance targets, and which limit the roofline measures (cache, memory, or
cache+memory).

    python3 bench/ratios.py bench.json

Ratios are judged round by round: in a run made with --rounds, the ratio of two implementations is
the median over the rounds of the optimized backend's run in round i over the other's run in round
i, which ran seconds apart (a shared machine's bandwidth moves more than that between one stretch of
seconds and the next, and such a move slows both sides of a pair alike). The reference runs once,
so opt/ref is the ratio of medians; so is every ratio of a run made with --benchmark_repetitions,
whose repetitions of one implementation ran back to back.

`control` is the optimized backend timed a second time as if it were another implementation
(bench_main.cpp): opt/ctl, judged the same way, is how far this run's noise alone moves a ratio of
that workload. A workload whose opt/ctl strays from 1 by more than 5% is undecided: its ratios are
printed, marked with `?`, and count neither as passed nor as failed. When more than a third of the
workloads are undecided, the run decided nothing.

Exit status: 0 when every workload was decided and met its targets; 1 when a decided workload
failed a target; 3 when no decided workload failed but some were undecided, or when the run decided
nothing (whatever failed); 2 when the file cannot be read.

Under the table, each failed ratio is given round by round, with how much more it needs and how far
its workload's control strayed, and so is each undecided workload's control.
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

# A workload whose control (opt/ctl, the same code timed twice) strays from 1 by more than this
# factor is undecided. dmlcert_bench adds rounds to such a workload up to its --max_rounds, with the
# same bound (bench_main.cpp: kControlSettled).
CONTROL_MAX_SPREAD = 1.05
# A run with more than this share of its workloads undecided decided nothing.
UNDECIDED_MAX_SHARE = 1 / 3

PEERS = ("eigen", "torch")
ROOFLINE_LOOPS = (("copy", "copy_nt"), ("read", "read_hw"))

EXIT_PASSED, EXIT_FAILED, EXIT_UNREADABLE, EXIT_UNDECIDED = 0, 1, 2, 3


class BenchRun:
    """One dmlcert_bench output: per workload and implementation, its runs as {round: bytes per
    second}. A run's round is its `round` counter (bench_main.cpp) where it has one, otherwise its
    place among the runs of the same name. A run made with --benchmark_repetitions is represented by
    Google Benchmark's median aggregate of each benchmark, as one round: its repetitions ran back to
    back, so pairing them would pair nothing that ran side by side."""

    def __init__(self, data):
        self.context = data.get("context", {})
        benchmarks = [b for b in data.get("benchmarks", []) if "error_occurred" not in b]
        medians = [b for b in benchmarks if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
        self.aggregated = bool(medians)
        chosen = medians if medians else [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
        self.runs = {}  # workload -> implementation -> {round: bytes per second}
        self.labels = {}
        for b in chosen:
            if "bytes_per_second" not in b:
                continue
            workload, _, impl = b["name"].partition("/")
            impl = impl.split("/")[0]
            by_round = self.runs.setdefault(workload, {}).setdefault(impl, {})
            key = int(b["round"]) if "round" in b and not medians else len(by_round)
            by_round[key] = b["bytes_per_second"]
            if b.get("label"):
                self.labels[workload] = b["label"]
        self.repetitions = max((b.get("repetitions", 1) for b in medians), default=1)

    def rate(self, workload, impl):
        """The median of the implementation's runs, or None when it did not run."""
        runs = self.runs.get(workload, {}).get(impl)
        return statistics.median(runs.values()) if runs else None

    def rounds_of(self, workload, impl):
        return self.runs.get(workload, {}).get(impl, {})

    def roofline_rounds(self, workload):
        """{round: the faster roofline loop's rate in that round}."""
        impls = self.runs.get(workload, {})
        for loops in ROOFLINE_LOOPS:
            found = [impls[k] for k in loops if k in impls]
            if found:
                rounds = set().union(*found)
                return {r: max(f[r] for f in found if r in f) for r in rounds}
        return {}

    def paired(self, workload, other):
        """The optimized backend's ratio to `other` ("roof": the faster roofline loop of the round)
        in each round where both ran, in round order."""
        opt = self.rounds_of(workload, "optimized")
        theirs = self.roofline_rounds(workload) if other == "roof" else self.rounds_of(workload, other)
        return [opt[r] / theirs[r] for r in sorted(opt) if theirs.get(r) and opt[r]]

    def judged(self, workload, other):
        """The ratio a verdict is taken on: the median of the paired ratios (the reference, which
        runs once: the ratio of medians). None when either side did not run."""
        if other == "reference":
            return ratio(self.rate(workload, "optimized"), self.rate(workload, "reference"))
        pairs = self.paired(workload, other)
        return statistics.median(pairs) if pairs else None

    def has(self, impl):
        return any(impl in impls for impls in self.runs.values())

    def run_counts(self):
        """How many runs the optimized backend's median covers, over the workloads."""
        counts = [len(impls["optimized"]) for impls in self.runs.values() if "optimized" in impls]
        return (min(counts), max(counts)) if counts else (0, 0)


def load(path):
    with open(path) as f:
        return BenchRun(json.load(f))


def spread(r):
    """How far ratio r is from 1, as a factor >= 1 (0.9 and 1.11 are both 1.11 apart)."""
    return max(r, 1 / r)


def percent(factor):
    """A factor >= 1 as the percentage it adds: 1.111 is 11.1%. One decimal, so that a shortfall
    and the noise it is held against never print alike when they differ."""
    return f"{100 * (factor - 1):.1f}%"


def ratio(a, b):
    return a / b if a and b else None


def undecided(control):
    """Whether a workload with this opt/ctl (None: no control ran) is undecided."""
    return control is not None and spread(control) > CONTROL_MAX_SPREAD


def verdict(value, target):
    if value is None or target is None:
        return ""
    return "PASS" if value >= target else "FAIL"


def peer_need(vs_roof):
    """The opt/peer a workload must reach: 1.0 where it runs at 0.9 of the roofline, 1.1 elsewhere."""
    if vs_roof is not None and vs_roof >= BANDWIDTH_ROOF_MIN:
        return PEER_BANDWIDTH_MIN
    return PEER_MIN


def roof_target(workload):
    if workload in ROOFLINE_TARGETS:
        return ROOFLINE_TARGETS[workload]
    if workload.startswith("reduce_") and workload.endswith(MEMORY_SUFFIX):
        return REDUCTION_MEMORY_ROOF_MIN
    return None


def fmt(value):
    return "-" if value is None else f"{value:.2f}"


def describe_cache(context):
    llc = context.get("llc_bytes")
    if llc is None:
        return "last-level cache: not reported"
    how = "detected" if context.get("llc_detected") == "true" else "not detected, assumed"
    return f"last-level cache: {int(llc) / 2**20:g} MiB ({how})"


def describe_runs(run):
    if run.aggregated:
        return f"rates: medians of {run.repetitions} runs (--benchmark_repetitions: ratios of medians, not paired)"
    low, high = run.run_counts()
    if high <= 1:
        return "rates: single runs (no --rounds or --benchmark_repetitions)"
    counts = f"{low}" if low == high else f"{low} to {high}"
    return f"rates: medians of {counts} runs\nratios: medians over the rounds of run i over run i"


class Workload:
    """One workload's line: its ratios, verdicts and what failed."""

    def __init__(self, run, name, peers):
        self.name = name
        self.opt = run.rate(name, "optimized")
        self.control = run.judged(name, "control")
        self.undecided = undecided(self.control)
        self.vs_roof = run.judged(name, "roof")
        need = peer_need(self.vs_roof)
        # (column, value, target): the target a value must reach, None where there is none. A peer
        # ratio must reach 1.1, or 1.0 where the optimized backend runs at 0.9 of the roofline.
        self.cells = [("ref", run.judged(name, "reference"), REFERENCE_MIN)]
        self.cells += [(p, run.judged(name, p), need) for p in peers]
        self.cells.append(("roof", self.vs_roof, roof_target(name)))
        rate_target = RATE_TARGETS_GBPS.get(name)
        self.rate_verdict = verdict(self.opt / 1e9, rate_target)
        self.failed = [(column, value, target) for column, value, target in self.cells
                       if verdict(value, target) == "FAIL"]
        self.failed_rate = self.rate_verdict == "FAIL"

    def mark(self, value, target):
        """PASS or FAIL, with `?` while the workload is undecided."""
        v = verdict(value, target)
        return v + "?" if v and self.undecided else v

    def failures(self):
        """Failed targets that count: none while undecided."""
        return 0 if self.undecided else len(self.failed) + self.failed_rate


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        run = load(argv[1])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"ratios.py: {argv[1]}: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(describe_cache(run.context))
    print(describe_runs(run))
    peers = [p for p in PEERS if p == "eigen" or run.has(p)]
    has_control = run.has("control")
    columns = [("opt/ref", 8)] + [(f"opt/{p}", 9) for p in peers] + [("opt/roof", 8)]
    header = f"{'workload':30} {'GB/s':>7} {'':5} " + " ".join(f"{name:>{w}} {'':5}" for name, w in columns)
    if has_control:
        header += f" {'opt/ctl':>7} {'rounds':>6}"
    header += f" {'roofline measures':<17}"
    print(header)
    print("-" * len(header))
    workloads = [Workload(run, name, peers) for name in run.runs if run.rate(name, "optimized") is not None]
    for w in workloads:
        line = f"{w.name:30} {w.opt / 1e9:7.2f} {w.mark(w.opt / 1e9, RATE_TARGETS_GBPS.get(w.name)):5} "
        line += " ".join(
            f"{fmt(value):>{width}} {w.mark(value, target):5}" for (_, value, target), (_, width) in zip(w.cells, columns)
        )
        if has_control:
            line += f" {fmt(w.control):>7} {len(run.paired(w.name, 'control')):>6}"
        print(line + f" {run.labels.get(w.name, '-'):<17}")

    open_ = [w for w in workloads if w.undecided]
    failures = sum(w.failures() for w in workloads)
    if has_control:
        worst = max((w for w in workloads if w.control), key=lambda w: spread(w.control), default=None)
        print(
            f"\ncontrol: opt/ctl, the same code timed twice, within {percent(CONTROL_MAX_SPREAD)} of 1 on "
            f"{len(workloads) - len(open_)} of {len(workloads)} workloads"
            + (f"; the largest stray {percent(spread(worst.control))} ({worst.name})" if worst else "")
        )
    shown = [(w, column, value, target) for w in workloads for column, value, target in w.failed]
    shown = [s for s in shown if len(run.paired(s[0].name, s[1])) > 1]
    if shown:
        print("\nfailed ratios round by round (the median first; how many rounds met the target):")
        for w, column, value, target in shown:
            values = run.paired(w.name, column)
            met = sum(v >= target for v in values)
            noise = f"its control strays {percent(spread(w.control))}" if w.control else "no control"
            noise += ", undecided" if w.undecided else ""
            print(
                f"  {w.name + ' opt/' + column:40} {value:.2f}: "
                + " ".join(f"{v:.2f}" for v in values)
                + f"  ({met} of {len(values)} at {target:g} or more; needs {percent(target / value)} more, {noise})"
            )
    if open_:
        print(f"\nundecided: opt/ctl strays more than {percent(CONTROL_MAX_SPREAD)} (round by round, median first):")
        for w in open_:
            values = run.paired(w.name, "control")
            print(f"  {w.name + ' opt/ctl':40} {w.control:.2f}: " + " ".join(f"{v:.2f}" for v in values))
    print(f"\n{failures} target(s) failed on decided workloads")
    if len(open_) > UNDECIDED_MAX_SHARE * len(workloads):
        print(f"decided nothing: {len(open_)} of {len(workloads)} workloads undecided, more than a third")
        return EXIT_UNDECIDED
    if failures:
        return EXIT_FAILED
    if open_:
        print(f"{len(open_)} of {len(workloads)} workload(s) undecided")
        return EXIT_UNDECIDED
    return EXIT_PASSED


if __name__ == "__main__":
    sys.exit(main(sys.argv))
