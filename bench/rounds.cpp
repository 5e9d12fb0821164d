#include "rounds.h"

#include <algorithm>
#include <cmath>

namespace dmlcert::bench {

bool control_settled(std::vector<double> ratios) {
  if (ratios.empty()) return true;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  const double median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  return std::max(median, 1 / median) <= kControlSettled;
}

std::vector<double> RoundPlan::control_ratios(const std::string& workload) const {
  std::vector<double> out;
  const auto w = rates_.find(workload);
  if (w == rates_.end()) return out;
  const auto opt = w->second.find("optimized"), ctl = w->second.find("control");
  if (opt == w->second.end() || ctl == w->second.end()) return out;
  for (const auto& [round, rate] : opt->second) {
    const auto other = ctl->second.find(round);
    if (other != ctl->second.end() && rate > 0 && other->second > 0) out.push_back(rate / other->second);
  }
  return out;
}

bool RoundPlan::runs(const std::string& workload, int round) {
  if (round < rounds_) return true;
  if (round >= max_rounds_) return false;
  const auto key = std::make_pair(workload, round);
  const auto found = decided_.find(key);
  if (found != decided_.end()) return found->second;
  // A round after one that did not run does not run either: nothing new has been measured since.
  const bool previous = round == rounds_ || runs(workload, round - 1);
  const bool needed = previous && !control_settled(control_ratios(workload));
  decided_[key] = needed;
  return needed;
}

void RoundPlan::record(const std::string& workload, const std::string& impl, int round,
                       double bytes_per_second) {
  rates_[workload][impl][round] = bytes_per_second;
}

bool RoundReporter::ReportContext(const Context& context) {
  // Google Benchmark points this reporter, not the one it wraps, at the --benchmark_out file.
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void RoundReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> kept;
  for (const Run& run : runs) {
    if (run.error_occurred && run.error_message == kRoundNotNeeded) continue;
    kept.push_back(run);
    if (!plan_ || run.error_occurred || run.run_type != Run::RT_Iteration) continue;
    const auto round = run.counters.find("round");
    const auto rate = run.counters.find("bytes_per_second");
    if (round == run.counters.end() || rate == run.counters.end()) continue;
    // `<workload>/<implementation>/<Google Benchmark's suffix>`
    const std::string name = run.benchmark_name();
    const size_t a = name.find('/'), b = name.find('/', a + 1);
    if (a == std::string::npos) continue;
    plan_->record(name.substr(0, a), name.substr(a + 1, b == std::string::npos ? b : b - a - 1),
                  static_cast<int>(std::lround(round->second.value)), rate->second.value);
  }
  if (!kept.empty()) inner_->ReportRuns(kept);
}

void RoundReporter::Finalize() {
  inner_->Finalize();
}

}  // namespace dmlcert::bench
