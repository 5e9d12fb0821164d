// A plugin part of whose code is compiled with SanitizerCoverage (coverage_probe_paths.c): the
// reference, which asks the instrumented file which path each call takes. Its certification must
// report the instrumented file's edges and functions, per operator, and name the function it
// never calls (docs/coverage.md).
#include "misbehaviour.h"

extern "C" int dmlcert_probe_path(uint32_t op, uint64_t output_bytes);

namespace dmlcert::test_plugins {
namespace {

class CoverageProbe final : public Backend {
 public:
  std::string name() const override { return "coverage probe test plugin"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    return reference_->implements(op, function, type);
  }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    // The path is chosen as a kernel library's dispatch would, and the reference does the work.
    (void)dmlcert_probe_path(static_cast<uint32_t>(op_kind(desc)) + 1, b.output.size);
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
  return std::make_unique<CoverageProbe>();
}

}  // namespace dmlcert::test_plugins
