// The rule catalog of SPEC.md as data. The IDs are spelled exactly as in SPEC.md; the texts are
// one-line digests of its rule tables.
#include "dmlcert/rules.h"

#include <array>

namespace dmlcert {
namespace {

using enum RuleTag;

constexpr std::array kRules = {
    // Tensor descriptors (all operators).
    Rule{"T.RANK", Doc,
         "Each tensor's DimensionCount is in the range the support table gives for the op, role and "
         "feature level."},
    Rule{"T.DTYPE", Doc,
         "Each tensor's DataType is in the support table for the op (and REDUCE function), role and "
         "feature level."},
    Rule{"T.SIZE_ZERO", Doc, "No size may be 0."},
    Rule{"T.TOTAL_BYTES", Doc,
         "TotalTensorSizeInBytes >= roundup4((dot(Sizes-1, Strides) + 1) * elementSize) and is a "
         "multiple of 4."},
    Rule{"T.ELEMENT_LIMIT", Doc, "dot(Sizes-1, Strides) + 1 must not exceed 2^32-1."},
    Rule{"T.STRIDES_COUNT", Inferred, "If Strides is present, it has DimensionCount entries."},
    Rule{"T.OUTPUT_OVERLAP", Unspecified,
         "An output whose strides map two coordinates to one element (a 0 stride, say) is class U."},
    Rule{"OP.FEATURE_LEVEL", Doc,
         "SLICE and REDUCE exist from 1_0; SLICE1, SCATTER_ND and GATHER_ELEMENTS exist from 2_1."},
    Rule{"OP.FUNCTION", Doc, "The REDUCE function is one of the 12 DML_REDUCE_FUNCTION values."},
    // SLICE.
    Rule{"SLICE.DIMCOUNT", Doc, "DimensionCount == Input rank == Output rank; 1..8 from 3_0, 4 or 5 before."},
    Rule{"SLICE.DTYPE_MATCH", Doc, "Input and Output DataType are equal."},
    Rule{"SLICE.SIZES_MATCH_OUTPUT", Doc, "Sizes[i] == Output.Sizes[i]."},
    Rule{"SLICE.IN_BOUNDS", Doc,
         "Offsets[i] + Strides[i]*(Sizes[i]-1) < Input.Sizes[i]: no out-of-bounds reads."},
    Rule{"SLICE.STRIDE_ZERO", Unspecified,
         "Strides[i] == 0 is class U; if executed, Output[c] = Input[Offsets + Strides*c]."},
    // SLICE1.
    Rule{"SLICE1.DIMCOUNT", Doc,
         "DimensionCount == Input rank == Output rank; 1..8 from 3_0, 4 or 5 at 2_1."},
    Rule{"SLICE1.DTYPE_MATCH", Doc, "Input and Output DataType are equal."},
    Rule{"SLICE1.WINDOW_EMPTY", Doc, "InputWindowSizes[i] >= 1."},
    Rule{"SLICE1.WINDOW_BOUNDS", Doc, "InputWindowOffsets[i] + InputWindowSizes[i] <= Input.Sizes[i]."},
    Rule{"SLICE1.STRIDE_ZERO", Doc, "InputWindowStrides[i] != 0."},
    Rule{"SLICE1.OUTPUT_SIZE", Doc,
         "1 <= Output.Sizes[i] <= 1 + (InputWindowSizes[i]-1) / abs(InputWindowStrides[i])."},
    // SCATTER_ND.
    Rule{"SCATTERND.DIMCOUNT", Doc,
         "Input, Indices, Updates and Output have the same DimensionCount (1..8 from 3_0, 4 at 2_1)."},
    Rule{"SCATTERND.DTYPE_MATCH", Doc, "Input, Updates and Output DataType are equal."},
    Rule{"SCATTERND.INPUT_DIMCOUNT", Doc, "1 <= InputDimensionCount <= Input.DimensionCount."},
    Rule{"SCATTERND.INDICES_DIMCOUNT", Doc, "1 <= IndicesDimensionCount <= Indices.DimensionCount."},
    Rule{"SCATTERND.LEADING_DIMS", Inferred, "The stripped leading sizes of Input and of Indices are all 1."},
    // The seed says the tuple size "cannot exceed InputTensor.DimensionCount"; the seed wins.
    Rule{"SCATTERND.TUPLE_SIZE", Doc, "1 <= k = Indices.Sizes[last] <= Input.DimensionCount."},
    Rule{"SCATTERND.UPDATES_SHAPE", Doc,
         "Updates.Sizes == right-aligned (indices meaningful sizes without the last) ++ (input meaningful "
         "sizes after the first k), left-padded with 1s."},
    Rule{"SCATTERND.OUTPUT_SHAPE", Doc, "Output.Sizes == Input.Sizes."},
    Rule{"SCATTERND.INDEX_RANGE", DocData,
         "Index data lies in [0, d), or from 3_0 with a signed index type in [-d, d); otherwise class U."},
    Rule{"SCATTERND.DUPLICATE", DocData,
         "Two tuples addressing the same element make the case class U (any one competing update per "
         "element is admissible)."},
    // REDUCE.
    Rule{"REDUCE.DIMCOUNT", Doc, "Output rank == Input rank."},
    Rule{"REDUCE.AXIS_RANGE", Doc, "Every axis is in [0, rank-1]."},
    Rule{"REDUCE.AXES_EMPTY", Unspecified,
         "AxisCount == 0 is class U; if executed, the function applies to each element alone (N = 1)."},
    Rule{"REDUCE.AXES_DUPLICATE", Unspecified,
         "A repeated axis is class U; if executed, the axes are treated as a set."},
    Rule{"REDUCE.OUTPUT_SIZES", Doc, "Output.Sizes[i] is 1 for reduced axes and Input.Sizes[i] otherwise."},
    Rule{"REDUCE.DTYPE_MATCH", Doc,
         "Output DataType == Input DataType, except ARGMAX/ARGMIN, whose output is an integer type."},
    Rule{"REDUCE.INT_OVERFLOW", Unspecified,
         "An integer reduction whose result or a partial result leaves the type's range is class U."},
    Rule{"REDUCE.NONFINITE", Unspecified,
         "NaN/Inf input to a float REDUCE, or a float partial result that overflows, is class U (MIN/MAX/"
         "ARG*: IEEE-propagating or NaN-ignoring results are admissible)."},
    // GATHER_ELEMENTS.
    Rule{"GATHERELEMENTS.DIMCOUNT", Doc,
         "Input, Indices and Output have the same DimensionCount (1..8 from 3_0, 4 at 2_1)."},
    Rule{"GATHERELEMENTS.AXIS_RANGE", Doc, "Axis < Input rank."},
    Rule{"GATHERELEMENTS.INDICES_SHAPE", Doc, "Indices.Sizes[i] == Input.Sizes[i] for every i != Axis."},
    Rule{"GATHERELEMENTS.OUTPUT_SHAPE", Doc, "Output.Sizes == Indices.Sizes."},
    Rule{"GATHERELEMENTS.DTYPE_MATCH", Doc, "Output DataType == Input DataType."},
    Rule{"GATHERELEMENTS.INDEX_RANGE", DocData,
         "Index data lies in [0, Input.Sizes[Axis]), or from 3_0 with a signed index type in [-d, d); "
         "otherwise class U."},
};

}  // namespace

std::string_view name(RuleTag t) {
  switch (t) {
    case Doc: return "doc";
    case Inferred: return "inferred";
    case Unspecified: return "unspecified";
    case DocData: return "doc/U";
  }
  return "tag?";
}

std::span<const Rule> rule_catalog() {
  return kRules;
}

const Rule* find_rule(std::string_view id) {
  for (const Rule& r : kRules)
    if (r.id == id) return &r;
  return nullptr;
}

bool makes_invalid(const Rule& r) {
  return r.tag == Doc || r.tag == Inferred;
}

}  // namespace dmlcert
