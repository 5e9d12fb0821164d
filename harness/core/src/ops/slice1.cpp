// SLICE1's rules, support table and checks (docs/rules.md, docs/support.md; seed 000).
#include "dmlcert/ops/slice1.h"

#include <cstdlib>

#include "checks.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kRules = {
    Rule{"SLICE1.DIMCOUNT", Doc,
         "DimensionCount == Input rank == Output rank; 1..8 from 3_0, 4 or 5 at 2_1."},
    Rule{"SLICE1.DTYPE_MATCH", Doc, "Input and Output DataType are equal."},
    Rule{"SLICE1.WINDOW_EMPTY", Doc, "InputWindowSizes[i] >= 1."},
    Rule{"SLICE1.WINDOW_BOUNDS", Doc, "InputWindowOffsets[i] + InputWindowSizes[i] <= Input.Sizes[i]."},
    Rule{"SLICE1.STRIDE_ZERO", Doc, "InputWindowStrides[i] != 0."},
    Rule{"SLICE1.OUTPUT_SIZE", Doc,
         "1 <= Output.Sizes[i] <= 1 + (InputWindowSizes[i]-1) / abs(InputWindowStrides[i])."},
};

using L = FeatureLevel;
constexpr std::array<SupportRow, 6> kSupport = {{
    {{}, Role::INPUT, L::L2_1, 4, 5, types::k8Types},
    {{}, Role::OUTPUT, L::L2_1, 4, 5, types::k8Types},
    {{}, Role::INPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INPUT, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::OUTPUT, L::L4_1, 1, 8, types::kAll11},
}};

}  // namespace

std::span<const Rule> Slice1Desc::rules() {
  return kRules;
}
std::span<const SupportRow> Slice1Desc::support_rows() {
  return kSupport;
}

void Slice1Desc::validate(const Slice1Desc& d, FeatureLevel level, Findings& f) {
  check_param_dimcount(f, "SLICE1.DIMCOUNT",
                       {{"params.input_window_offsets", d.input_window_offsets.size()},
                        {"params.input_window_sizes", d.input_window_sizes.size()},
                        {"params.input_window_strides", d.input_window_strides.size()}},
                       d.input, d.output, dimcount_range(level, true), level);
  check_dtype_match(f, "SLICE1.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  const auto& off = d.input_window_offsets;
  const auto& size = d.input_window_sizes;
  const auto& stride = d.input_window_strides;
  for (size_t i = 0; i < size.size(); ++i)
    if (size[i] == 0) f.invalid("SLICE1.WINDOW_EMPTY", at("params.input_window_sizes", i) + " is 0");
  for (size_t i = 0; i < stride.size(); ++i)
    if (stride[i] == 0) f.invalid("SLICE1.STRIDE_ZERO", at("params.input_window_strides", i) + " is 0");
  const bool window_aligned = off.size() == d.input.sizes.size() && size.size() == d.input.sizes.size();
  for (size_t i = 0; window_aligned && i < size.size(); ++i) {
    const uint64_t end = uint64_t{off[i]} + size[i];
    if (end > d.input.sizes[i])
      f.invalid("SLICE1.WINDOW_BOUNDS",
                at("params.input_window_offsets", i) + " + " + at("params.input_window_sizes", i) + " = " +
                    std::to_string(off[i]) + " + " + std::to_string(size[i]) + " = " + std::to_string(end) +
                    ", above " + at("tensors.input.sizes", i) + " = " + std::to_string(d.input.sizes[i]));
  }
  const bool output_aligned = stride.size() == size.size() && d.output.sizes.size() == size.size();
  for (size_t i = 0; output_aligned && i < size.size(); ++i) {
    if (size[i] == 0 || stride[i] == 0) continue;  // reported above; the bound is undefined
    const uint64_t max_out =
        1 + (uint64_t{size[i]} - 1) / static_cast<uint64_t>(std::abs(int64_t{stride[i]}));
    const uint32_t out = d.output.sizes[i];
    if (out < 1 || out > max_out)
      f.invalid("SLICE1.OUTPUT_SIZE",
                at("tensors.output.sizes", i) + " is " + std::to_string(out) + "; it must be in [1, 1 + (" +
                    std::to_string(size[i]) + " - 1) / |" + std::to_string(stride[i]) + "|] = [1, " +
                    std::to_string(max_out) + "] (" + at("params.input_window_sizes", i) + ", " +
                    at("params.input_window_strides", i) + ")");
  }
}

}  // namespace dmlcert
