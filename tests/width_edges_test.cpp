// The edges of integer widths, reached for every operator and type (issue: sizes, thresholds and
// bit patterns). A backend that keeps a position in 8 or 16 bits (an index table of int16, an
// ARGMAX index in a uint16, SLICE offsets in a uint16) is right until a position passes the edge,
// and such a bug is often in one type's kernel only. So a quick certification must ask, for every
// operator, function and data type, a valid call whose answer depends on a position past 2^8,
// 2^15 and 2^16:
// - SLICE and SLICE1: an input coordinate read along some dimension;
// - GATHER_ELEMENTS: an index that resolves to a position along the axis;
// - SCATTER_ND: an index tuple's component;
// - REDUCE: the number of elements folded into one output, and for ARGMAX and ARGMIN the index
//   of the expected answer itself.
//
// The certification is the real one (the quick budget's plan, generators and seeds), in-process,
// against a backend that only records (recorded_quick_plan.h).
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "build_kind.h"
#include "dmlcert/indices.h"
#include "dmlcert/tensor.h"
#include "dmlcert/validate.h"
#include "recorded_quick_plan.h"
#include "reference/reference.h"

namespace dmlcert {
namespace {

constexpr uint32_t kEdges[] = {8, 15, 16};

// The largest position each (operator[.function], type) asked, over valid calls.
class Reach {
 public:
  void note(const std::string& key, uint64_t position) {
    std::lock_guard<std::mutex> hold(lock_);
    uint64_t& top = top_[key];
    top = std::max(top, position);
  }
  std::map<std::string, uint64_t> tops() const {
    std::lock_guard<std::mutex> hold(lock_);
    return top_;
  }

 private:
  mutable std::mutex lock_;
  std::map<std::string, uint64_t> top_;
};

std::string key(std::string_view op, DataType t) {
  return std::string(op) + "/" + std::string(name(t));
}

uint64_t element_at(DataType t, ConstBuffer b, uint64_t offset) {
  const auto v = integer_value(t, b.data + offset * element_size(t));
  return v && *v > 0 ? static_cast<uint64_t>(*v) : 0;
}

void note_slice(Reach& r, const SliceDesc& d) {
  uint64_t top = 0;
  for (size_t i = 0; i < d.output.sizes.size(); ++i)
    top = std::max(top, uint64_t{d.offsets[i]} + uint64_t{d.strides[i]} * (d.output.sizes[i] - 1));
  r.note(key("SLICE", d.input.type), top);
}

void note_slice1(Reach& r, const Slice1Desc& d) {
  uint64_t top = 0;
  for (size_t i = 0; i < d.input_window_offsets.size(); ++i)
    top = std::max(top, uint64_t{d.input_window_offsets[i]} + d.input_window_sizes[i] - 1);
  r.note(key("SLICE1", d.input.type), top);
}

void note_gather_elements(Reach& r, const GatherElementsDesc& d, FeatureLevel level, const Bindings& b) {
  const uint32_t extent = d.input.sizes[d.axis];
  const bool negative = negative_indices_allowed(d.indices.type, level);
  const auto strides = effective_strides(d.indices);
  uint64_t top = 0;
  for_each_offset(d.indices.sizes, strides, [&](uint64_t at) {
    const auto v = integer_value(d.indices.type, b.indices.data + at * element_size(d.indices.type));
    if (const auto p = v ? resolve_index(*v, extent, negative) : std::nullopt)
      top = std::max<uint64_t>(top, *p);
  });
  r.note(key("GATHER_ELEMENTS", d.input.type), top);
  r.note(key("GATHER_ELEMENTS", d.indices.type) + " indices", top);
}

void note_scatter_nd(Reach& r, const ScatterNdDesc& d, const Bindings& b) {
  const auto strides = effective_strides(d.indices);
  uint64_t top = 0;
  for_each_offset(d.indices.sizes, strides,
                  [&](uint64_t at) { top = std::max(top, element_at(d.indices.type, b.indices, at)); });
  r.note(key("SCATTER_ND", d.input.type), top);
  r.note(key("SCATTER_ND", d.indices.type) + " indices", top);
}

void note_reduce(Reach& r, const ReduceDesc& d, FeatureLevel level, const Bindings& b) {
  uint64_t folded = 1;
  for (uint32_t a : d.axes) folded *= d.input.sizes[a];
  const std::string op = "REDUCE." + std::string(name(d.function));
  r.note(key(op, d.input.type), folded - 1);
  if (d.function != ReduceFunction::ARGMAX && d.function != ReduceFunction::ARGMIN) return;
  if (folded <= (uint64_t{1} << kEdges[0])) return;
  // The answer's own index: the reference's, read back from an output of our own.
  Bytes out(element_count(d.output.sizes).value_or(0) * element_size(d.output.type));
  Bindings mine = b;
  mine.output = {out.data(), out.size()};
  if (reference::make_backend()->execute(d, level, mine).status != Status::Ok) return;
  uint64_t top = 0;
  for (uint64_t i = 0; i < element_count(d.output.sizes).value_or(0); ++i)
    top = std::max(top, element_at(d.output.type, {out.data(), out.size()}, i));
  r.note(key(op + " answer", d.input.type), top);
}

class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(Reach& reach) : reach_(reach) {}
  std::string name() const override { return "recording"; }
  FeatureLevel max_feature_level() const override { return FeatureLevel::L6_4; }
  bool implements(OpKind, std::optional<ReduceFunction>, DataType) const override { return true; }
  bool reports_rules() const override { return false; }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    if (!validate(desc, level).invalid.empty()) return exec_result(Status::InvalidArgument, Fault::None, "");
    std::visit(
        [&](const auto& d) {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, SliceDesc>) note_slice(reach_, d);
          if constexpr (std::is_same_v<D, Slice1Desc>) note_slice1(reach_, d);
          if constexpr (std::is_same_v<D, ScatterNdDesc>) note_scatter_nd(reach_, d, b);
          if constexpr (std::is_same_v<D, GatherElementsDesc>) note_gather_elements(reach_, d, level, b);
          if constexpr (std::is_same_v<D, ReduceDesc>) note_reduce(reach_, d, level, b);
        },
        desc);
    return ExecResult{};
  }

 private:
  Reach& reach_;
};

TEST(WidthEdges, AQuickCertificationAsksPositionsPastEachNarrowWidthForEveryOperatorAndType) {
  if (!test::kOptimized) GTEST_SKIP() << "an optimized build's test";
  Reach reach;
  std::string error;
  const auto report = test::certify_quick_plan(
      "width_edges_test", [&] { return std::make_unique<RecordingBackend>(reach); }, &error);
  ASSERT_TRUE(report) << error;
  std::string missing;
  for (const auto& [k, top] : reach.tops())
    for (uint32_t e : kEdges)
      if (top < (uint64_t{1} << e))
        missing += "\n  " + k + ": largest " + std::to_string(top) + " < 2^" + std::to_string(e);
  EXPECT_TRUE(missing.empty()) << "positions never past an edge:" << missing;
}

}  // namespace
}  // namespace dmlcert
