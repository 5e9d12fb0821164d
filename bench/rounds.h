// Which rounds of a workload run (--rounds and --max_rounds, bench_main.cpp), and the reporter that
// tells them the rates measured so far.
//
// The first `rounds` rounds of every workload run. Each further round, up to `max_rounds`, runs only
// while the workload's control has not settled: while opt/control, judged as bench/ratios.py judges
// it (the median over the rounds so far of the optimized backend's run in round i over the control's
// run in round i), strays from 1 by more than kControlSettled. ratios.py calls a workload whose
// control strays further undecided, so a round is added exactly where one can still change the
// verdict from undecided to decided. Every round a workload runs runs all its implementations, so
// that every ratio keeps its pairs.
//
// Google Benchmark registers every benchmark before the first one runs, so every round up to
// max_rounds is registered, and a benchmark of a round that is not needed skips itself
// (State::SkipWithError with kRoundNotNeeded) before it times anything. The reporters drop such
// runs, so that neither the terminal nor the JSON file shows them.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dmlcert::bench {

// bench/ratios.py: CONTROL_MAX_SPREAD.
inline constexpr double kControlSettled = 1.05;
inline constexpr const char* kRoundNotNeeded = "round not needed: the control has settled";

class RoundPlan {
 public:
  RoundPlan(int rounds, int max_rounds) : rounds_(rounds), max_rounds_(max_rounds) {}

  int rounds() const { return rounds_; }
  int max_rounds() const { return max_rounds_; }

  // Whether round `round` of `workload` runs. Decided once per round, by the first of its
  // benchmarks to ask, from the rounds before it (which have all been reported by then).
  bool runs(const std::string& workload, int round);
  // One run's rate, as reported.
  void record(const std::string& workload, const std::string& impl, int round, double bytes_per_second);
  // opt/control in each round so far where both ran, in round order.
  std::vector<double> control_ratios(const std::string& workload) const;

 private:
  int rounds_, max_rounds_;
  // workload -> implementation -> round -> bytes per second
  std::map<std::string, std::map<std::string, std::map<int, double>>> rates_;
  std::map<std::pair<std::string, int>, bool> decided_;
};

// Whether ratios over these rounds leave the control within kControlSettled of 1 (no rounds: true,
// there is nothing to settle, as when a filter leaves the control or the optimized backend out).
bool control_settled(std::vector<double> ratios);

// Passes every run to `inner` except those that skipped as not needed, and records each timed
// run's rate in `plan` (when given). ReportContext and Finalize are passed on as they come.
class RoundReporter : public benchmark::BenchmarkReporter {
 public:
  RoundReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, RoundPlan* plan)
      : inner_(std::move(inner)), plan_(plan) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  RoundPlan* plan_;
};

}  // namespace dmlcert::bench
