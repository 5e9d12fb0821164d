// SLICE's rules, support table and checks (docs/rules.md, docs/support.md; seed 003).
#include "dmlcert/ops/slice.h"

#include "checks.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kRules = {
    Rule{"SLICE.DIMCOUNT", Doc, "DimensionCount == Input rank == Output rank; 1..8 from 3_0, 4 or 5 before."},
    Rule{"SLICE.DTYPE_MATCH", Doc, "Input and Output DataType are equal."},
    Rule{"SLICE.SIZES_MATCH_OUTPUT", Doc, "Sizes[i] == Output.Sizes[i]."},
    Rule{"SLICE.IN_BOUNDS", Doc,
         "Offsets[i] + Strides[i]*(Sizes[i]-1) < Input.Sizes[i]: no out-of-bounds reads."},
    Rule{"SLICE.STRIDE_ZERO",
         Unspecified,
         "Strides[i] == 0 is class U; if executed, Output[c] = Input[Offsets + Strides*c].",
         Admits::Formula,
         {},
         profiles::kTheFormula},
};

// SLICE at 1_0 lacks INT8 and UINT8 (seed 003's 1_0 table).
constexpr std::array kTypes1_0 = {DataType::FLOAT32, DataType::FLOAT16, DataType::INT32,
                                  DataType::INT16,   DataType::UINT32,  DataType::UINT16};

using L = FeatureLevel;
constexpr std::array<SupportRow, 8> kSupport = {{
    {{}, Role::INPUT, L::L1_0, 4, 5, kTypes1_0},
    {{}, Role::OUTPUT, L::L1_0, 4, 5, kTypes1_0},
    {{}, Role::INPUT, L::L2_1, 4, 5, types::k8Types},
    {{}, Role::OUTPUT, L::L2_1, 4, 5, types::k8Types},
    {{}, Role::INPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INPUT, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::OUTPUT, L::L4_1, 1, 8, types::kAll11},
}};

}  // namespace

std::span<const Rule> SliceDesc::rules() {
  return kRules;
}
std::span<const SupportRow> SliceDesc::support_rows() {
  return kSupport;
}

void SliceDesc::validate(const SliceDesc& d, FeatureLevel level, Findings& f) {
  check_param_dimcount(f, "SLICE.DIMCOUNT",
                       {{"params.offsets", d.offsets.size()},
                        {"params.sizes", d.sizes.size()},
                        {"params.strides", d.strides.size()}},
                       d.input, d.output, dimcount_range(level, true), level);
  check_dtype_match(f, "SLICE.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  // Elementwise rules compare arrays of equal length only; differing lengths are DIMCOUNT's.
  if (d.sizes.size() == d.output.sizes.size())
    for (size_t i = 0; i < d.sizes.size(); ++i)
      if (d.sizes[i] != d.output.sizes[i])
        f.invalid("SLICE.SIZES_MATCH_OUTPUT", at("params.sizes", i) + " is " + std::to_string(d.sizes[i]) +
                                                  " but " + at("tensors.output.sizes", i) + " is " +
                                                  std::to_string(d.output.sizes[i]));
  const size_t n = d.input.sizes.size();
  const bool aligned = d.offsets.size() == n && d.sizes.size() == n && d.strides.size() == n;
  for (size_t i = 0; aligned && i < n; ++i) {
    if (d.sizes[i] == 0) continue;  // nothing is read; SIZES_MATCH_OUTPUT or T.SIZE_ZERO reports it
    const u128 last = u128{d.offsets[i]} + u128{d.strides[i]} * (d.sizes[i] - 1);
    if (last >= d.input.sizes[i])
      f.invalid("SLICE.IN_BOUNDS",
                at("params.offsets", i) + " + " + at("params.strides", i) + " * (" + at("params.sizes", i) +
                    " - 1) = " + std::to_string(d.offsets[i]) + " + " + std::to_string(d.strides[i]) + " * " +
                    std::to_string(d.sizes[i] - 1) + " = " + checks::to_string(last) + ", not below " +
                    at("tensors.input.sizes", i) + " = " + std::to_string(d.input.sizes[i]));
  }
  for (size_t i = 0; i < d.strides.size(); ++i)
    if (d.strides[i] == 0) f.unspecified("SLICE.STRIDE_ZERO", at("params.strides", i) + " is 0");
}

}  // namespace dmlcert
