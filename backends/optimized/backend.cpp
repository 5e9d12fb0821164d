// The optimized Backend: shared validation, then one fast entry point per operator.
#include <exception>
#include <optional>
#include <string>

#include "dmlcert/support.h"
#include "dmlcert/validate.h"
#include "optimized/optimized.h"
#include "optimized/thread_pool.h"

namespace dmlcert::optimized {

namespace {

constexpr FeatureLevel kMaxLevel = FeatureLevel::L6_4;

ExecResult rejection(Status status, std::string message, std::vector<Violation> violations = {}) {
  ExecResult r;
  r.status = status;
  r.message = std::move(message);
  r.violations = std::move(violations);
  return r;
}

class OptimizedBackend final : public Backend {
 public:
  std::string name() const override { return "optimized"; }
  FeatureLevel max_feature_level() const override { return kMaxLevel; }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    const auto s = support(op, function, Role::INPUT, kMaxLevel);
    return s && s->allows(type);
  }
  bool reports_rules() const override { return true; }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    // The shared validator, so that a class I descriptor gets exactly the reference's rule IDs.
    const Validation v = validate(desc, level);
    if (!v.invalid.empty()) {
      std::string message = "invalid descriptor:";
      for (const Violation& x : v.invalid) message += " " + x.rule;
      return rejection(Status::InvalidArgument, std::move(message), v.invalid);
    }
    // Every kernel may touch any byte up to a tensor's minimum implied size; never beyond a binding.
    if (auto short_bindings = binding_violations(desc, b); !short_bindings.empty())
      return rejection(Status::InvalidArgument, "bindings too small: " + short_bindings.front().message,
                       short_bindings);
    // Outputs whose strides alias (class U) run on one thread: no two threads race on an element.
    std::optional<SerialScope> serial;
    if (v.has("T.OUTPUT_OVERLAP")) serial.emplace();
    try {
      return visit(desc, [&](const auto& d) { return optimized::compute(d, level, b); });
    } catch (const std::exception& e) {
      return rejection(Status::Error, std::string("optimized backend: ") + e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
  return std::make_unique<OptimizedBackend>();
}

}  // namespace dmlcert::optimized
