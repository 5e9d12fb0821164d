#include "failure_printer.h"

#include "dmlcert/text.h"
#include "report_summary.h"

namespace dmlcert::engine {

std::string failure_block(const cert::Failure& f) {
  // A flaky case failed once and passed when run again: not a failure unless asked (--flaky-fails).
  // A known one (certify --expect) does not fail the run: it says so in its first word.
  std::string block = std::string(f.outcome == Outcome::Flaky ? "FLAKY "
                                  : f.expected                ? "KNOWN "
                                                              : "FAILED ") +
                      printable(f.id.to_string()) + ": " + std::string(name(f.outcome)) +
                      (f.detail.empty() ? "" : ": " + printable(f.detail, 600)) + "\n";
  if (f.confirmation != cert::Confirmation::Unchecked)
    block +=
        "  " + std::string(name(f.confirmation)) +
        (f.sequence.empty() ? ""
                            : " (fails after " + std::to_string(f.sequence_length - 1) + " earlier case" +
                                  (f.sequence_length == 2 ? "" : "s") + " in the same process)") +
        "\n";
  if (f.expected) block += "  a known failure (--expect): not confirmed or shrunk\n";
  if (f.cause_known) block += "  not investigated again: an earlier failure has the same cause\n";
  if (!f.repro.empty()) block += "  case file: " + printable(f.repro) + "\n";
  if (!f.shrunk.empty()) block += "  shrunk:    " + printable(f.shrunk) + "\n";
  if (!f.sequence.empty()) block += "  sequence:  " + printable(f.sequence) + "\n";
  if (!f.backend_output.empty()) block += "  the backend printed: " + printable(f.backend_output, 300) + "\n";
  // The printer serves runs that keep repro files: a failure without one could not be written.
  block += f.reproduce.empty() ? "  no case file: it could not be written\n"
                               : "  reproduce: " + f.reproduce + "\n";
  return block;
}

void FailurePrinter::cause_found(const cert::Failure& f, bool investigated) {
  if (f.expected) {
    {
      std::lock_guard<std::mutex> hold(lock_);
      if (!known_causes_.insert(cert::cause_key(f)).second) return;
    }
    print_(failure_block(f) + "  more failures of this known cause are in the report, not printed\n");
    return;
  }
  if (investigated) {
    print_(failure_block(f));
    return;
  }
  const std::string check = f.counts_at.to_string();
  const std::string outcome(name(f.outcome));
  {
    std::lock_guard<std::mutex> hold(lock_);
    if (!quiet_checks_.insert(check + " " + outcome).second) return;
  }
  print_("  (more " + outcome + " failures in " + printable(check) +
         ": saved and in the report, not confirmed or printed)\n");
}

}  // namespace dmlcert::engine
