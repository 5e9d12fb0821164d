// A backend that implements SLICE and nothing else, and says so through implements(): the
// reference's SLICE, UNSUPPORTED for every other operator, valid or not. Expected: certified for
// SLICE (all 11 types), with every other operator outside its scope, and no failure.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

class SliceOnly final : public Backend {
 public:
  std::string name() const override { return "slice-only test plugin"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    return op == OpKind::SLICE && reference_->implements(op, function, type);
  }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    if (op_kind(desc) != OpKind::SLICE)
      return exec_result(Status::Unsupported, Fault::None, "this backend implements SLICE only");
    return reference_->execute(desc, level, b);
  }

 private:
  std::unique_ptr<Backend> reference_ = reference::make_backend();
};

}  // namespace

plugin::AdapterHooks misbehaviour() {
  return {};
}

std::unique_ptr<Backend> backend() {
  return std::make_unique<SliceOnly>();
}

}  // namespace dmlcert::test_plugins
