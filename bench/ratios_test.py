#!/usr/bin/env python3
"""Tests of bench/ratios.py on hand-made Google Benchmark JSON: which rate stands for a benchmark
run several times, which roofline a reduction is held to, and the verdicts. Run by CTest
(bench_ratios) or directly: python3 bench/ratios_test.py"""
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


def ratios_of(benchmarks):
    """ratios.py's verdict on a run: (exit status, workload -> line printed for it)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"context": {"llc_bytes": str(32 << 20), "llc_detected": "true"}, "benchmarks": benchmarks}, f)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = ratios.main(["ratios.py", f.name])
    finally:
        os.unlink(f.name)
    lines = {line.split()[0]: line for line in out.getvalue().splitlines() if line.startswith("reduce_")}
    return status, lines, out.getvalue()


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
        runs = [run("reduce_x/optimized", v) for v in (1, 2, 3)] + [run("reduce_x/read", v) for v in (1, 2, 3)]
        self.assertIn("rates: medians of 3 runs", ratios_of(runs)[2])


class Rounds(unittest.TestCase):
    """Under the table, a failed ratio round by round: the i-th optimized run over the i-th peer or
    roofline run, in the order the bench wrote them."""

    def rounds_section(self, rates):
        runs = [run(f"reduce_x{suffix}/{impl}", v) for suffix, impl, values in rates for v in values]
        return [line.strip() for line in ratios_of(runs)[2].splitlines() if "opt/" in line and ":" in line]

    def test_a_failed_peer_ratio_is_given_per_round(self):
        # Medians 30 and 30: a tie, failed below the roofline (30/40), where the peer ratio must
        # reach 1.1; round by round 0.97, 1.20 and 1.00.
        lines = self.rounds_section([("", "optimized", (29, 36, 30)), ("", "torch", (30, 30, 30)), ("", "read", (40,) * 3)])
        self.assertEqual(lines, ["reduce_x opt/torch                       1.00: 0.97 1.20 1.00  (1 of 3 at 1.1 or more)"])

    def test_at_the_roofline_a_failed_peer_ratio_is_counted_against_1(self):
        # Medians 29 and 30 at 29/30 of the roofline: behind a peer that is itself at the limit.
        lines = self.rounds_section([("", "optimized", (29, 31, 28)), ("", "torch", (30, 30, 30)), ("", "read", (30,) * 3)])
        self.assertEqual(lines, ["reduce_x opt/torch                       0.97: 0.97 1.03 0.93  (1 of 3 at 1 or more)"])

    def test_a_failed_roofline_ratio_takes_each_rounds_faster_loop(self):
        # read is faster in round 1, read_hw in round 2: 24/30 and 24/40.
        lines = self.rounds_section(
            [("_mem", "optimized", (24, 24)), ("_mem", "read", (30, 20)), ("_mem", "read_hw", (20, 40))]
        )
        self.assertEqual(lines, ["reduce_x_mem opt/roof                    0.70: 0.80 0.60  (0 of 2 at 0.85 or more)"])

    def test_nothing_is_given_when_every_target_holds(self):
        self.assertEqual(self.rounds_section([("", "optimized", (40, 40)), ("", "torch", (30, 30))]), [])


class Control(unittest.TestCase):
    """`control` is the optimized backend timed twice: opt/ctl, and the largest spread of it under
    the table, is how far the run's noise alone moves a ratio."""

    def output(self, rates):
        """Two rounds of the same rates (a failed ratio is given round by round from two on)."""
        return ratios_of(
            [run(f"{w}/{impl}", v) for w, impl_rates in rates.items() for impl, v in impl_rates.items() for _ in (1, 2)]
        )

    def test_the_column_and_the_floor(self):
        # 30/27 = 1.111 and 30/33 = 0.909 (1/0.909 = 1.1): the floor is the larger spread, 11.1%.
        _, lines, out = self.output(
            {"reduce_x": {"optimized": 30, "control": 27, "read": 30}, "reduce_y": {"optimized": 30, "control": 33, "read": 30}}
        )
        self.assertEqual(lines["reduce_x"].split()[5], "1.11")
        self.assertEqual(lines["reduce_y"].split()[5], "0.91")
        self.assertIn("differed by up to 11.1% (reduce_x, of 2 workloads)", out)

    def test_a_failed_ratio_is_held_against_the_floor(self):
        # Floor 1.1 (33/30). Needed: 0.85/0.80 = 1.0625 more (within), 1.0/0.8 = 1.25 (beyond).
        _, _, out = self.output(
            {
                "reduce_x_mem": {"optimized": 24, "control": 22, "read": 30},
                "reduce_y_mem": {"optimized": 30, "control": 33, "torch": 37.5, "read": 30},
            }
        )
        self.assertIn("(0 of 2 at 0.85 or more; needs 6.2% more, within the noise floor)", out)
        self.assertIn("(0 of 2 at 1 or more; needs 25.0% more, beyond the noise floor)", out)

    def test_a_shortfall_under_1_percent_is_not_rounded_to_0(self):
        # 25.4 / 30 = 0.847 of the roofline: 0.85 needs 0.4% more, within a floor of 1.6% (25.4/25).
        _, _, out = self.output({"reduce_x_mem": {"optimized": 25.4, "control": 25, "read": 30}})
        self.assertIn("needs 0.4% more, within the noise floor", out)
        self.assertIn("differed by up to 1.6%", out)

    def test_no_control_no_column_and_no_floor(self):
        _, lines, out = self.output({"reduce_x": {"optimized": 30, "read": 30}})
        self.assertNotIn("opt/ctl", out)
        self.assertNotIn("noise floor", out)


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
