// The reference Backend: validate, check the bindings, then run the operator's file. It claims
// every cell of the support tables at every feature level and reports the rules it rejects by.
#include <string>

#include "dmlcert/rules.h"
#include "dmlcert/support.h"
#include "dmlcert/validate.h"
#include "reference/internal.h"
#include "reference/reference.h"

namespace dmlcert::reference {
namespace {

std::string describe(const std::vector<Violation>& vs) {
  std::string s;
  for (const Violation& v : vs) s += (s.empty() ? "" : "; ") + v.rule + ": " + v.message;
  return s;
}

// A class U descriptor the documentation gives no result for (T.OUTPUT_OVERLAP): the reference
// does not guess one.
bool admits_anything(const Violation& v) {
  const Rule* r = find_rule(v.rule);
  return r && r->admits == Admits::Anything;
}

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  FeatureLevel max_feature_level() const override { return FeatureLevel::L6_4; }
  bool reports_rules() const override { return true; }

  // The support tables only grow with the level, so the highest level's table is the union.
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    const auto s = support(op, function, Role::INPUT, FeatureLevel::L6_4);
    return s && s->allows(type);
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& buffers) override {
    // Nothing is written to the output before every check below has passed.
    const Validation v = validate(desc, level);
    if (!v.invalid.empty()) return detail::rejected(v.invalid, "invalid descriptor: " + describe(v.invalid));
    if (auto short_bindings = binding_violations(desc, buffers); !short_bindings.empty())
      return detail::rejected(short_bindings, "bindings too small: " + describe(short_bindings));
    for (const Violation& u : v.unspecified)
      if (admits_anything(u))
        return detail::rejected({u}, "unspecified descriptor with no admissible result: " + describe({u}));
    // Index data out of range (class U, no admissible result) is rejected by the operator itself
    // before it writes anything.
    return visit(desc, [&](const auto& d) { return reference::compute(d, level, buffers, Reading{}); });
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
  return std::make_unique<ReferenceBackend>();
}

}  // namespace dmlcert::reference
