// The optimized Backend: shared validation, then one fast entry point per operator.
#include <exception>
#include <optional>
#include <string>

#include "dmlcert/support.h"
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
    for (Role role : roles(op_kind(desc))) {
      const TensorDesc& t = *tensor(desc, role);
      const uint64_t need = min_implied_bytes(t).value_or(UINT64_MAX);
      const uint64_t have = is_input_role(role) ? b.of(role).size : b.output.size;
      const bool null = is_input_role(role) ? b.of(role).data == nullptr : b.output.data == nullptr;
      if (have < need || null)
        return rejection(Status::InvalidArgument, "the " + std::string(dmlcert::name(role)) +
                                                      " binding holds " + std::to_string(have) +
                                                      " bytes, the tensor needs " + std::to_string(need));
    }
    // Outputs whose strides alias (class U) run on one thread: no two threads race on an element.
    std::optional<SerialScope> serial;
    if (v.has("T.OUTPUT_OVERLAP")) serial.emplace();
    try {
      return std::visit(
          [&](const auto& d) -> ExecResult {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, SliceDesc>) return slice(d, b);
            if constexpr (std::is_same_v<D, Slice1Desc>) return slice1(d, b);
            if constexpr (std::is_same_v<D, ScatterNdDesc>) return scatter_nd(d, level, b);
            if constexpr (std::is_same_v<D, ReduceDesc>) return reduce(d, b);
            if constexpr (std::is_same_v<D, GatherElementsDesc>) return gather_elements(d, level, b);
          },
          desc);
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
