// The reference Backend: validate, check the bindings, then run the operator's file. It claims
// every cell of the support tables at every feature level and reports the rules it rejects by.
#include <string>
#include <variant>

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

// Every tensor's binding must hold its minimum implied size (T.TOTAL_BYTES): the operators read
// and write up to there without further checks.
std::vector<Violation> binding_violations(const OperatorDesc& desc, const Bindings& b) {
  std::vector<Violation> out;
  for (Role role : roles(op_kind(desc))) {
    const TensorDesc* t = tensor(desc, role);
    const ConstBuffer buffer = b.of(role);
    const auto need = min_implied_bytes(*t);
    if (!need || buffer.data == nullptr || buffer.size < *need)
      out.push_back({"T.TOTAL_BYTES", "the " + std::string(name(role)) + " binding holds " +
                                          std::to_string(buffer.size) +
                                          " bytes, fewer than the minimum implied size " +
                                          (need ? std::to_string(*need) : std::string("(overflows)"))});
  }
  return out;
}

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  FeatureLevel max_feature_level() const override { return FeatureLevel::L6_4; }
  bool reports_rules() const override { return true; }

  // The support tables only grow with the level, so the highest level's table is the union.
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    const auto s =
        support(op, op == OpKind::REDUCE ? function : std::nullopt, Role::INPUT, FeatureLevel::L6_4);
    return s && s->allows(type);
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& buffers) override {
    // Nothing is written to the output before every check below has passed.
    const Validation v = validate(desc, level);
    if (!v.invalid.empty()) return detail::rejected(v.invalid, "invalid descriptor: " + describe(v.invalid));
    if (auto short_bindings = binding_violations(desc, buffers); !short_bindings.empty())
      return detail::rejected(short_bindings, "bindings too small: " + describe(short_bindings));
    for (const Violation& u : v.unspecified)
      if (!detail::has_admissible_result(u))
        return detail::rejected({u}, "unspecified descriptor with no admissible result: " + describe({u}));
    // Index data out of range (class U, no admissible result) is rejected by the operator itself
    // before it writes anything.
    return std::visit(
        [&](const auto& d) -> ExecResult {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, SliceDesc>)
            return slice(d, buffers);
          else if constexpr (std::is_same_v<D, Slice1Desc>)
            return slice1(d, buffers);
          else if constexpr (std::is_same_v<D, ScatterNdDesc>)
            return scatter_nd(d, level, buffers);
          else if constexpr (std::is_same_v<D, ReduceDesc>)
            return reduce(d, buffers);
          else
            return gather_elements(d, level, buffers);
        },
        desc);
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
  return std::make_unique<ReferenceBackend>();
}

}  // namespace dmlcert::reference
