// The quick budget's plan at 5_0 (its generators and seeds, through the engine, two workers), run
// in-process against a backend that only records what it is asked: for tests that measure what a
// quick certification reaches (thresholds_test.cpp, width_edges_test.cpp). The oracle expects the
// output the harness fills before a call, which the recording backend leaves, so that nothing is
// computed twice.
#pragma once

#include <optional>
#include <string>

#include "certify.h"
#include "scratch_dir.h"

namespace dmlcert::test {

// Expects what the harness fills every output byte with before a call (case_buffers.h). Class U
// cases admit anything.
class FillOracle final : public Oracle {
 public:
  std::optional<std::vector<Bytes>> admissible_outputs(const Case& c, const Classification& cls,
                                                       std::string*) override {
    if (cls.case_class != CaseClass::Valid) return std::vector<Bytes>{};
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    return std::vector<Bytes>{
        Bytes(element_count(out.sizes).value_or(0) * element_size(out.type), kOutputFill)};
  }
};

inline std::optional<cert::Report> certify_quick_plan(const std::string& scratch,
                                                      const engine::BackendFactory& open,
                                                      std::string* error) {
  const auto dir = scratch_dir(scratch);
  engine::CertifyOptions o;
  o.backend = "recording";
  o.level = FeatureLevel::L5_0;
  o.budget = *engine::budget_named("quick");
  o.jobs = 2;
  o.engine.backend_spec = "recording";
  o.engine.program = "dmlcert";
  o.engine.repro_dir = dir.string();
  // No in-flight file: it holds each case while a backend in this process could crash, and this
  // one cannot (writing every case's JSON would cost more than the run).
  o.engine.isolated = true;
  FillOracle oracle;
  return engine::run_certification(o, open, oracle, error);
}

}  // namespace dmlcert::test
