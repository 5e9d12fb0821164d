// What a person watching a run sees of its failures: a block per failure, printed as the engine
// finds it (docs/design.md, "The engine", step 5), and the engine's warnings.
#pragma once

#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "engine.h"

namespace dmlcert::engine {

// Prints, through `print` (above a progress line, say), a block for each failure among the first of
// its check: the check and the outcome, the detail, the confirmation, the files, what the backend
// printed and the command that reproduces it. Of the failures past those it says once per check
// that they are saved and reported. A known failure (certify --expect) is printed once per cause,
// marked KNOWN: a baseline of a few causes is not pages of blocks. Serves every worker of a run.
class FailurePrinter : public Listener {
 public:
  // Warnings go to `warn`, or with the failures.
  explicit FailurePrinter(std::function<void(const std::string&)> print,
                          std::function<void(const std::string&)> warn = nullptr)
      : print_(std::move(print)), warn_(warn ? std::move(warn) : print_) {}
  void cause_found(const cert::Failure& f, bool investigated) override;
  void warning(const std::string& text) override { warn_(text); }

 private:
  std::function<void(const std::string&)> print_, warn_;
  std::mutex lock_;
  std::set<std::string> quiet_checks_;  // checks and outcomes whose further failures are not printed
  std::set<std::string> known_causes_;  // the known causes printed once
};

// The block printed for a failure.
std::string failure_block(const cert::Failure& f);

}  // namespace dmlcert::engine
