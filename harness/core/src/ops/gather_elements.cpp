// GATHER_ELEMENTS' rules, support table and checks (docs/rules.md, docs/support.md; seed 004).
#include "dmlcert/ops/gather_elements.h"

#include "checks.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kRules = {
    Rule{"GATHERELEMENTS.DIMCOUNT", Doc,
         "Input, Indices and Output have the same DimensionCount (1..8 from 3_0, 4 at 2_1)."},
    Rule{"GATHERELEMENTS.AXIS_RANGE", Doc, "Axis < Input rank."},
    Rule{"GATHERELEMENTS.INDICES_SHAPE", Doc, "Indices.Sizes[i] == Input.Sizes[i] for every i != Axis."},
    Rule{"GATHERELEMENTS.OUTPUT_SHAPE", Doc, "Output.Sizes == Indices.Sizes."},
    Rule{"GATHERELEMENTS.DTYPE_MATCH", Doc, "Output DataType == Input DataType."},
    Rule{"GATHERELEMENTS.INDEX_RANGE",
         DocData,
         "Index data lies in [0, Input.Sizes[Axis]), or from 3_0 with a signed index type in [-d, d); "
         "otherwise class U.",
         Admits::Anything,
         {},
         profiles::kIndexPlacement},
};

using L = FeatureLevel;
constexpr std::array<SupportRow, 9> kSupport = {{
    {{}, Role::INPUT, L::L2_1, 4, 4, types::k8Types},
    {{}, Role::INDICES, L::L2_1, 4, 4, types::kU32},
    {{}, Role::OUTPUT, L::L2_1, 4, 4, types::k8Types},
    {{}, Role::INPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INDICES, L::L3_0, 1, 8, types::kIndexTypes},
    {{}, Role::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INPUT, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::INDICES, L::L4_1, 1, 8, types::kIndexTypes},
    {{}, Role::OUTPUT, L::L4_1, 1, 8, types::kAll11},
}};

}  // namespace

std::span<const Rule> GatherElementsDesc::rules() {
  return kRules;
}
std::span<const SupportRow> GatherElementsDesc::support_rows() {
  return kSupport;
}

void GatherElementsDesc::validate(const GatherElementsDesc& d, FeatureLevel level, Findings& f) {
  const uint32_t rank = d.input.rank();
  const std::string what = "tensors.input DimensionCount";
  check_range(f, "GATHERELEMENTS.DIMCOUNT", what, rank, dimcount_range(level, false), level);
  check_same_rank(f, "GATHERELEMENTS.DIMCOUNT", Role::INDICES, d.indices, what, rank);
  check_same_rank(f, "GATHERELEMENTS.DIMCOUNT", Role::OUTPUT, d.output, what, rank);
  if (d.axis >= rank)
    f.invalid("GATHERELEMENTS.AXIS_RANGE", "params.axis is " + std::to_string(d.axis) +
                                               "; it must be below " + std::to_string(rank) +
                                               " (tensors.input DimensionCount)");
  for (size_t i = 0; d.indices.rank() == rank && i < rank; ++i)
    if (i != d.axis && d.indices.sizes[i] != d.input.sizes[i])
      f.invalid("GATHERELEMENTS.INDICES_SHAPE",
                at("tensors.indices.sizes", i) + " is " + std::to_string(d.indices.sizes[i]) + " but " +
                    at("tensors.input.sizes", i) + " is " + std::to_string(d.input.sizes[i]) +
                    " (params.axis is " + std::to_string(d.axis) + ")");
  check_sizes_equal(f, "GATHERELEMENTS.OUTPUT_SHAPE", Role::OUTPUT, d.output, Role::INDICES, d.indices);
  check_dtype_match(f, "GATHERELEMENTS.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
}

void GatherElementsDesc::check_data(const GatherElementsDesc& d, FeatureLevel level, const InputData& data,
                                    Findings& f) {
  if (!has_logical_data(d.indices, data.indices) || d.axis >= d.input.rank()) return;
  const uint32_t dsize = d.input.sizes[d.axis];
  const bool negative = negative_indices_allowed(d.indices.type, level);
  const size_t es = element_size(d.indices.type);
  const uint64_t n = data.indices.size() / es;
  for (uint64_t i = 0; i < n; ++i) {
    const auto v = integer_value(d.indices.type, data.indices.data() + i * es);
    if (!v) return;  // a float index type: T.DTYPE's business
    if (!resolve_index(*v, dsize, negative))
      f.unspecified("GATHERELEMENTS.INDEX_RANGE",
                    "tensors.indices.data[" + std::to_string(i) + "] is " + to_string(*v) +
                        "; tensors.input.sizes[" + std::to_string(d.axis) + "] (params.axis) is " +
                        std::to_string(dsize) + ", so it must be in " + index_range_text(dsize, negative));
  }
}

}  // namespace dmlcert
