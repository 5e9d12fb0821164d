#include "testing/slice1_off_by_one_backend.h"

#include <cstring>

#include "reference/reference.h"

namespace dmlcert::props::proptest {
namespace {

bool has_negative_stride(const Slice1Desc& d) {
  for (int32_t s : d.input_window_strides)
    if (s < 0) return true;
  return false;
}

// SLICE1 with the bug: the start of a reversed dimension is one element early.
ExecResult buggy_slice1(const Slice1Desc& d, const Bindings& b) {
  const size_t es = element_size(d.input.type);
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    uint64_t in_off = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      const int64_t s = d.input_window_strides[i];
      const int64_t w = d.input_window_sizes[i];
      const int64_t start = d.input_window_offsets[i] + (s < 0 ? w - 2 : 0);  // BUG: should be w - 1
      int64_t x = start + s * static_cast<int64_t>(c[i]);
      if (x < 0) x = 0;
      if (x >= static_cast<int64_t>(d.input.sizes[i])) x = d.input.sizes[i] - 1;
      in_off += static_cast<uint64_t>(x) * in_strides[i];
    }
    std::memcpy(b.output.data + element_offset(c, out_strides) * es, b.input.data + in_off * es, es);
  });
  return ExecResult{};
}

class SelftestBackend : public Backend {
 public:
  SelftestBackend() : reference_(reference::make_backend()) {}
  std::string name() const override { return "selftest-slice1-negative-stride-off-by-one"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> f, DataType t) const override {
    return reference_->implements(op, f, t);
  }
  bool reports_rules() const override { return reference_->reports_rules(); }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    const auto* s1 = std::get_if<Slice1Desc>(&desc);
    if (s1 && has_negative_stride(*s1) && validate(desc, level).case_class() == CaseClass::Valid)
      return buggy_slice1(*s1, b);
    return reference_->execute(desc, level, b);
  }

 private:
  std::unique_ptr<Backend> reference_;
};

}  // namespace

std::unique_ptr<Backend> make_slice1_off_by_one_backend() {
  return std::make_unique<SelftestBackend>();
}

}  // namespace dmlcert::props::proptest
