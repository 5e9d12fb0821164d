// TILE's rules, support table and checks (docs/rules.md, docs/support.md; docs/ops/tile.md).
#include "dmlcert/ops/tile.h"

#include "checks.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kRules = {
    Rule{"TILE.DIMCOUNT", Doc, "Length of Repeats == Input rank == Output rank, 1..8."},
    Rule{"TILE.REPEATS_NONZERO", Doc, "Repeats[i] >= 1."},
    Rule{"TILE.OUTPUT_SHAPE", Doc, "Output.Sizes[i] == Input.Sizes[i] * Repeats[i]."},
    Rule{"TILE.DTYPE_MATCH", Doc, "Input and Output DataType are equal."},
};

using L = FeatureLevel;
constexpr std::array<SupportRow, 4> kSupport = {{
    {{}, Role::INPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INPUT, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::OUTPUT, L::L4_1, 1, 8, types::kAll11},
}};

}  // namespace

std::span<const Rule> TileDesc::rules() {
  return kRules;
}
std::span<const SupportRow> TileDesc::support_rows() {
  return kSupport;
}

void TileDesc::validate(const TileDesc& d, FeatureLevel level, Findings& f) {
  check_param_dimcount(f, "TILE.DIMCOUNT", {{"params.repeats", d.repeats.size()}}, d.input, d.output,
                       dimcount_range(level, false), level);
  check_dtype_match(f, "TILE.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  for (size_t i = 0; i < d.repeats.size(); ++i)
    if (d.repeats[i] == 0) f.invalid("TILE.REPEATS_NONZERO", at("params.repeats", i) + " is 0");
  // Elementwise, over arrays of equal length only (differing lengths are DIMCOUNT's), and only
  // where the repeat is legal: a 0 repeat is REPEATS_NONZERO's alone.
  const size_t n = d.repeats.size();
  if (d.input.sizes.size() != n || d.output.sizes.size() != n) return;
  for (size_t i = 0; i < n; ++i) {
    if (d.repeats[i] == 0) continue;
    const uint64_t want = uint64_t{d.input.sizes[i]} * d.repeats[i];
    if (d.output.sizes[i] != want)
      f.invalid("TILE.OUTPUT_SHAPE", at("tensors.output.sizes", i) + " is " +
                                         std::to_string(d.output.sizes[i]) + " but " +
                                         at("tensors.input.sizes", i) + " * " + at("params.repeats", i) +
                                         " = " + std::to_string(d.input.sizes[i]) + " * " +
                                         std::to_string(d.repeats[i]) + " = " + std::to_string(want));
  }
}

}  // namespace dmlcert
