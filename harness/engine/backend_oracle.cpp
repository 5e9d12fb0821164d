#include "backend_oracle.h"

namespace dmlcert::engine {
namespace {

class BackendOracle final : public Oracle {
 public:
  BackendOracle(Backend& backend, RunOptions options) : backend_(backend), options_(std::move(options)) {}

  std::optional<std::vector<Bytes>> admissible_outputs(const Case& c, const Classification& cls,
                                                       std::string* why) override {
    if (cls.case_class != CaseClass::Valid) return std::vector<Bytes>{};
    auto buffers = options_.allocate(c, cls.case_class, options_.max_buffer_bytes, why);
    if (!buffers) return std::nullopt;
    const ExecResult r = backend_.execute(c.op, c.level, buffers->bindings());
    if (r.status != Status::Ok || r.fault != Fault::None) {
      *why = "the oracle backend " + backend_.name() +
             " did not execute this valid case: " + std::string(name(r.status)) +
             (r.message.empty() ? "" : ": " + r.message);
      return std::nullopt;
    }
    return std::vector<Bytes>{buffers->output()};
  }

 private:
  Backend& backend_;
  RunOptions options_;
};

}  // namespace

std::unique_ptr<Oracle> backend_oracle(Backend& backend, RunOptions options) {
  return std::make_unique<BackendOracle>(backend, std::move(options));
}

}  // namespace dmlcert::engine
