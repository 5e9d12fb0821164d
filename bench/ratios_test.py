#!/usr/bin/env python3
"""Tests of bench/ratios.py on hand-made Google Benchmark JSON: which rate stands for a benchmark
run several times, how a ratio is judged round by round, which roofline a reduction is held to, when
a workload is undecided, and the verdicts. Run by CTest (bench_ratios) or directly:
python3 bench/ratios_test.py"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402

GB = 1e9


def run(name, gbps, **extra):
    """One run as dmlcert_bench writes it: `<workload>/<implementation>/<Google Benchmark's suffix>`."""
    entry = {"name": f"{name}/min_time:0.300/real_time", "run_type": "iteration", "bytes_per_second": gbps * GB}
    entry.update(extra)
    return entry


def median_aggregate(name, gbps):
    return run(name, gbps, run_type="aggregate", aggregate_name="median", repetitions=5)


def rounds(workloads):
    """The runs of {workload: {implementation: (rate of round 0, rate of round 1, ...)}} in the
    order dmlcert_bench writes them (each round's implementations, then the next round), each with
    its round counter."""
    out = []
    most = max(len(v) for impls in workloads.values() for v in impls.values())
    for workload, impls in workloads.items():
        for r in range(most):
            out += [run(f"{workload}/{impl}", v[r], round=r) for impl, v in impls.items() if r < len(v)]
    return out


def ratios_of(benchmarks):
    """ratios.py's verdict on a run: (exit status, workload -> line printed for it, whole output)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"context": {"llc_bytes": str(32 << 20), "llc_detected": "true"}, "benchmarks": benchmarks}, f)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = ratios.main(["ratios.py", f.name])
    finally:
        os.unlink(f.name)
    lines = {line.split()[0]: line for line in out.getvalue().splitlines() if line.startswith(("reduce_", "slice_"))}
    return status, lines, out.getvalue()


def cell(line, column):
    """The value and verdict printed under `column` (opt/torch, opt/roof, ...) of a workload's line,
    as one string ("0.91 FAIL?"), read at the column's place in the header."""
    return line[column[0] : column[1]].split()


class Medians(unittest.TestCase):
    # Each case: the runs, and the optimized rate (GB/s) ratios.py must print.
    CASES = {
        "one run stands for itself": ([run("reduce_x/optimized", 30)], "30.00"),
        # --rounds: three runs of one name; their median, not the mean (31.7) or the last (35).
        "runs of one name give their median": (
            [run("reduce_x/optimized", 30), run("reduce_x/optimized", 20), run("reduce_x/optimized", 35)],
            "30.00",
        ),
        # --benchmark_repetitions: Google Benchmark's median, not its own reading of the runs.
        "a median aggregate wins over the runs": (
            [run("reduce_x/optimized", 10), run("reduce_x/optimized", 12), median_aggregate("reduce_x/optimized", 40)],
            "40.00",
        ),
    }

    def test_cases(self):
        for name, (benchmarks, printed) in self.CASES.items():
            with self.subTest(name):
                _, lines, _ = ratios_of(benchmarks)
                self.assertEqual(lines["reduce_x"].split()[1], printed)

    def test_says_how_many_runs_each_median_takes(self):
        out = ratios_of(rounds({"reduce_x": {"optimized": (1, 2, 3), "read": (1, 2, 3)}}))[2]
        self.assertIn("rates: medians of 3 runs\n", out)

    def test_says_so_when_workloads_ran_different_numbers_of_rounds(self):
        # dmlcert_bench adds rounds to a workload whose control has not settled.
        out = ratios_of(rounds({"reduce_x": {"optimized": (1, 2, 3)}, "reduce_y": {"optimized": (1, 2, 3, 4, 5)}}))[2]
        self.assertIn("rates: medians of 3 to 5 runs\n", out)


class Paired(unittest.TestCase):
    """A ratio is the median over the rounds of run i over run i, not the ratio of the medians."""

    # Each case: the runs, the column and what ratios.py prints there.
    CASES = {
        # Medians 30/25 = 1.20 would pass; round by round 1.20, 0.91 and 1.00, a median of 1.00,
        # below the 1.1 a peer ratio needs at 0.5 of the roofline.
        "a peer ratio is the median of the rounds' ratios": (
            rounds({"reduce_x": {"optimized": (30, 20, 40), "torch": (25, 22, 40), "read": (60, 60, 60)}}),
            "opt/torch",
            ["1.00", "FAIL"],
        ),
        # The same rates in the order written, but the torch runs carry the rounds 2, 0, 1: paired
        # by round, 30/25, 20/22 and 40/40 again.
        "runs are paired by their round counter": (
            [run("reduce_x/optimized", v, round=r) for r, v in enumerate((30, 20, 40))]
            + [run("reduce_x/torch", v, round=r) for r, v in ((2, 40), (0, 25), (1, 22))]
            + [run("reduce_x/read", 60, round=r) for r in range(3)],
            "opt/torch",
            ["1.00", "FAIL"],
        ),
        # Without round counters (a file from before them), the i-th run of each name is round i.
        "without a round counter, the i-th run of a name is round i": (
            [run("reduce_x/optimized", v) for v in (30, 20, 40)]
            + [run("reduce_x/torch", v) for v in (25, 22, 40)]
            + [run("reduce_x/read", 60) for _ in range(3)],
            "opt/torch",
            ["1.00", "FAIL"],
        ),
        # read is faster in round 0, read_hw in round 1: 24/30 and 24/40, a median of 0.70.
        "a roofline ratio takes each round's faster loop": (
            rounds({"reduce_x_mem": {"optimized": (24, 24), "read": (30, 20), "read_hw": (20, 40)}}),
            "opt/roof",
            ["0.70", "FAIL"],
        ),
        # The reference runs once, in the first round: opt/ref is the median rate (30) over it.
        "the reference, run once, is held to the median": (
            rounds({"reduce_x": {"optimized": (40, 30, 20), "reference": (1,), "read": (30, 30, 30)}}),
            "opt/ref",
            ["30.00", "PASS"],
        ),
        # --benchmark_repetitions: the medians' ratio, 40/30, whatever the runs were.
        "repetitions give the ratio of the medians": (
            [run("reduce_x/optimized", 10), run("reduce_x/torch", 40)]
            + [median_aggregate("reduce_x/optimized", 40), median_aggregate("reduce_x/torch", 30)],
            "opt/torch",
            ["1.33", "PASS"],
        ),
    }

    def test_cases(self):
        for name, (benchmarks, column, printed) in self.CASES.items():
            with self.subTest(name):
                _, lines, out = ratios_of(benchmarks)
                header = next(line for line in out.splitlines() if line.startswith("workload"))
                end = header.index(column) + len(column)
                line = next(iter(lines.values()))
                self.assertEqual(cell(line, (end - 9, end + 6)), printed, out)

    def test_a_failed_ratio_is_given_round_by_round(self):
        _, _, out = ratios_of(
            rounds(
                {"reduce_x": {"optimized": (29, 36, 30), "torch": (30, 30, 30), "control": (29, 36, 30), "read": (40,) * 3}}
            )
        )
        self.assertIn(
            "reduce_x opt/torch                       1.00: 0.97 1.20 1.00  "
            "(1 of 3 at 1.1 or more; needs 10.0% more, its control strays 0.0%)",
            out,
        )

    def test_at_the_roofline_a_failed_peer_ratio_is_counted_against_1(self):
        rates = {"optimized": (29, 31, 28), "torch": (30, 30, 30), "read": (30,) * 3}
        _, _, out = ratios_of(rounds({"reduce_x": rates}))
        self.assertIn("reduce_x opt/torch                       0.97: 0.97 1.03 0.93  (1 of 3 at 1 or more", out)

    def test_a_shortfall_under_1_percent_is_not_rounded_to_0(self):
        # 25.4 / 30 = 0.847 of the roofline: 0.85 needs 0.4% more.
        _, _, out = ratios_of(rounds({"reduce_x_mem": {"optimized": (25.4, 25.4), "read": (30, 30)}}))
        self.assertIn("needs 0.4% more, no control", out)

    def test_nothing_is_given_when_every_target_holds(self):
        _, _, out = ratios_of(rounds({"reduce_x": {"optimized": (40, 40), "torch": (30, 30)}}))
        self.assertNotIn("round by round", out)


class Undecided(unittest.TestCase):
    """A workload whose control, judged round by round like any ratio, strays from 1 by more than
    5% is undecided: its verdicts carry `?` and count neither way."""

    # Each case: the control's rounds against the optimized backend's (30, 30, 30), whether the
    # workload is undecided, and the opt/ctl printed.
    CASES = {
        "a control within 5% decides": ((29, 30, 31), False, "1.00"),
        # 30/28.6 = 1.049 and 30/31.5 = 0.952 (a spread of 1.050): at the bound, decided.
        "a control 1.049 away decides": ((28.6, 28.6, 28.6), False, "1.05"),
        "a control 0.952 away decides": ((31.5, 31.5, 31.5), False, "0.95"),
        # 30/28.5 = 1.053 and 30/31.6 = 0.949.
        "a control 1.053 away does not": ((28.5, 28.5, 28.5), True, "1.05"),
        "a control 0.949 away does not": ((31.6, 31.6, 31.6), True, "0.95"),
        # The control's median is 30, that of the optimized runs (20, 30, 40) too, a ratio of
        # medians of 1.00; round by round 20/22, 30/33 and 40/30, a median of 0.91.
        "the control is judged round by round": ((22, 33, 30), True, "0.91"),
    }

    def test_cases(self):
        for name, (control, open_, printed) in self.CASES.items():
            with self.subTest(name):
                opt = (20, 30, 40) if name == "the control is judged round by round" else (30, 30, 30)
                status, lines, out = ratios_of(
                    rounds({"reduce_x": {"optimized": opt, "control": control, "torch": (60,) * 3, "read": (30,) * 3}})
                )
                # opt/torch is 0.5 in every case: a failure when decided, FAIL? when undecided.
                self.assertEqual("FAIL?" in lines["reduce_x"], open_, out)
                self.assertEqual(status, 3 if open_ else 1, out)
                self.assertEqual(lines["reduce_x"].split()[-3], printed)

    def test_an_undecided_workload_shows_its_control_round_by_round(self):
        _, _, out = ratios_of(rounds({"reduce_x": {"optimized": (20, 30, 40), "control": (22, 33, 30)}}))
        self.assertIn("reduce_x opt/ctl                         0.91: 0.91 0.91 1.33", out)

    def test_no_control_no_column_and_every_workload_decided(self):
        status, _, out = ratios_of(rounds({"reduce_x": {"optimized": (30, 30), "torch": (60, 60)}}))
        self.assertNotIn("opt/ctl", out)
        self.assertEqual(status, 1)


class RunVerdict(unittest.TestCase):
    """The run's exit status from its workloads: 0 all decided and met, 1 a decided failure, 3
    undecided workloads without a decided failure, or more than a third undecided (the run decided
    nothing, whatever failed)."""

    PASSES = {"optimized": (30, 30), "control": (30, 30), "torch": (20, 20)}
    FAILS = {"optimized": (30, 30), "control": (30, 30), "torch": (60, 60)}
    OPEN = {"optimized": (30, 30), "control": (20, 20), "torch": (20, 20)}
    OPEN_FAILING = {"optimized": (30, 30), "control": (20, 20), "torch": (60, 60)}

    CASES = {
        "all decided, all met": ([PASSES, PASSES, PASSES], 0, None),
        "a decided failure": ([PASSES, FAILS, PASSES], 1, None),
        "an undecided failure does not count": ([PASSES, OPEN_FAILING, PASSES], 3, "1 of 3 workload(s) undecided"),
        "one undecided in three is a third, not more": ([FAILS, OPEN, PASSES], 1, None),
        "two undecided in three decide nothing": ([FAILS, OPEN, OPEN], 3, "decided nothing: 2 of 3 workloads undecided"),
        "two undecided in five decide nothing": (
            [PASSES, PASSES, PASSES, OPEN, OPEN],
            3,
            "decided nothing: 2 of 5 workloads undecided",
        ),
    }

    def test_cases(self):
        for name, (workloads, status, says) in self.CASES.items():
            with self.subTest(name):
                got, _, out = ratios_of(rounds({f"reduce_{i}": w for i, w in enumerate(workloads)}))
                self.assertEqual(got, status, out)
                if says:
                    self.assertIn(says, out)

    def test_the_control_summary(self):
        _, _, out = ratios_of(rounds({"reduce_a": self.PASSES, "reduce_b": self.OPEN}))
        self.assertIn("within 5.0% of 1 on 1 of 2 workloads; the largest stray 50.0% (reduce_b)", out)


class Verdicts(unittest.TestCase):
    # Each case: the workload's rates (GB/s) and the exit status (1: a target failed).
    CASES = {
        "ahead of the peer by 1.1": ("reduce_x", {"optimized": 33, "torch": 30, "read": 60}, 0),
        "a tie with the peer at the roofline": ("reduce_x", {"optimized": 30.6, "torch": 30, "read": 32}, 0),
        "a tie with the peer below the roofline": ("reduce_x", {"optimized": 30.6, "torch": 30, "read": 40}, 1),
        "behind the peer at the roofline": ("reduce_x", {"optimized": 29, "torch": 30, "read": 30}, 1),
        # bench/roofline.h: a reduction is held to the faster read loop, whichever it is.
        "the faster read roofline counts (read_hw)": (
            "reduce_x",
            {"optimized": 30.6, "torch": 30, "read": 32, "read_hw": 40},
            1,
        ),
        "the faster read roofline counts (read)": (
            "reduce_x",
            {"optimized": 30.6, "torch": 30, "read": 40, "read_hw": 32},
            1,
        ),
        # bench/roofline.h: a data-movement workload is held to the faster copy loop.
        "the faster copy roofline counts (copy_nt)": (
            "slice_x",
            {"optimized": 30.6, "torch": 30, "copy": 32, "copy_nt": 40},
            1,
        ),
        "the faster copy roofline counts (copy)": ("slice_x", {"optimized": 30.6, "torch": 30, "copy": 32, "copy_nt": 20}, 0),
        "a memory-sized reduction at 0.85 of the roofline": ("reduce_x_mem", {"optimized": 25.5, "read": 30}, 0),
        "a memory-sized reduction below 0.85 of the roofline": ("reduce_x_mem", {"optimized": 25.4, "read": 30}, 1),
        "LOG_SUM_EXP at 14 GB/s": ("reduce_logsumexp_axis1", {"optimized": 14}, 0),
        "LOG_SUM_EXP below 14 GB/s": ("reduce_logsumexp_axis1", {"optimized": 13.9}, 1),
    }

    def test_cases(self):
        for name, (workload, rates, status) in self.CASES.items():
            with self.subTest(name):
                got, _, out = ratios_of([run(f"{workload}/{impl}", v) for impl, v in rates.items()])
                self.assertEqual(got, status, out)

    def test_unreadable_file_is_status_2(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(ratios.main(["ratios.py", "/nonexistent/bench.json"]), 2)


if __name__ == "__main__":
    unittest.main()
