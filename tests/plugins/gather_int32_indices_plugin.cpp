// A backend as an NPU vendor writes one first: GATHER_ELEMENTS alone, with INT32 indices alone,
// and it says both (implements() and implements_index_type()). It answers UNSUPPORTED to anything
// else, so a valid case of another operator or index type that reached it would fail as a valid
// case refused. Expected: certified for GATHER_ELEMENTS with INT32 indices, and no report in any
// format shows a check, a profile row, a matrix row or a testcase of another operator.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

class GatherInt32Indices final : public Backend {
 public:
  std::string name() const override { return "gather-int32 test plugin"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    return op == OpKind::GATHER_ELEMENTS && reference_->implements(op, function, type);
  }
  bool implements_index_type(OpKind op, DataType index_type) const override {
    return op == OpKind::GATHER_ELEMENTS && index_type == DataType::INT32;
  }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    const auto* gather = std::get_if<GatherElementsDesc>(&desc);
    if (!gather || gather->indices.type != DataType::INT32)
      return exec_result(Status::Unsupported, Fault::None,
                         "this backend implements GATHER_ELEMENTS with INT32 indices only");
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
  return std::make_unique<GatherInt32Indices>();
}

}  // namespace dmlcert::test_plugins
