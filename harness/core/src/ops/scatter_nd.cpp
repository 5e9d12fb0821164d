// SCATTER_ND's rules, support table, geometry and checks (docs/rules.md, docs/support.md; seed
// 001).
#include "dmlcert/ops/scatter_nd.h"

#include <unordered_map>

#include "checks.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kDuplicateReadings = {Behaviour::NthWriteWins};
// The reference writes tuples in row-major order, so its own reading is the last write winning.
constexpr std::array kDuplicateProfile = {ProfileReading{"first write wins", {Behaviour::NthWriteWins, 0}},
                                          ProfileReading{"last write wins", {}}};

constexpr std::array kRules = {
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
    Rule{"SCATTERND.INDEX_RANGE",
         DocData,
         "Index data lies in [0, d), or from 3_0 with a signed index type in [-d, d); otherwise class U.",
         Admits::Anything,
         {},
         profiles::kIndexPlacement},
    Rule{"SCATTERND.DUPLICATE", DocData,
         "Two tuples addressing the same element make the case class U (any one competing update per "
         "element is admissible).",
         Admits::Readings, kDuplicateReadings, kDuplicateProfile},
};

using L = FeatureLevel;
constexpr std::array<SupportRow, 12> kSupport = {{
    {{}, Role::INPUT, L::L2_1, 4, 4, types::k8Types},
    {{}, Role::INDICES, L::L2_1, 4, 4, types::kU32},
    {{}, Role::UPDATES, L::L2_1, 4, 4, types::k8Types},
    {{}, Role::OUTPUT, L::L2_1, 4, 4, types::k8Types},
    {{}, Role::INPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INDICES, L::L3_0, 1, 8, types::kIndexTypes},
    {{}, Role::UPDATES, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {{}, Role::INPUT, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::INDICES, L::L4_1, 1, 8, types::kIndexTypes},
    {{}, Role::UPDATES, L::L4_1, 1, 8, types::kAll11},
    {{}, Role::OUTPUT, L::L4_1, 1, 8, types::kAll11},
}};

void check_leading_ones(Findings& f, Role role, const TensorDesc& t, uint32_t meaningful,
                        std::string_view param) {
  if (meaningful < 1 || meaningful > t.rank()) return;  // the *_DIMCOUNT rule reports it
  for (size_t i = 0; i < t.rank() - meaningful; ++i)
    if (t.sizes[i] != 1)
      f.invalid("SCATTERND.LEADING_DIMS", at(tensor_path(role) + ".sizes", i) + " is " +
                                              std::to_string(t.sizes[i]) +
                                              "; it is a stripped leading dimension (" + std::string(param) +
                                              " is " + std::to_string(meaningful) + ") and must be 1");
}

}  // namespace

std::span<const Rule> ScatterNdDesc::rules() {
  return kRules;
}
std::span<const SupportRow> ScatterNdDesc::support_rows() {
  return kSupport;
}

std::optional<ScatterGeometry> ScatterNdDesc::geometry() const {
  const uint32_t rank = input.rank(), irank = indices.rank();
  const uint32_t idc = input_dimension_count, xdc = indices_dimension_count;
  if (irank == 0 || idc < 1 || idc > rank || xdc < 1 || xdc > irank) return std::nullopt;
  ScatterGeometry g;
  g.k = indices.sizes.back();
  if (g.k < 1 || g.k > rank) return std::nullopt;
  const uint32_t m = std::max(idc, g.k);
  g.first_indexed = rank - m;
  g.first_block = rank - m + g.k;
  g.batch_sizes.assign(indices.sizes.begin() + (irank - xdc), indices.sizes.end() - 1);
  g.block_sizes.assign(input.sizes.begin() + g.first_block, input.sizes.end());
  g.expected_updates = g.batch_sizes;
  g.expected_updates.insert(g.expected_updates.end(), g.block_sizes.begin(), g.block_sizes.end());
  if (g.expected_updates.size() < updates.rank())
    g.expected_updates.insert(g.expected_updates.begin(), updates.rank() - g.expected_updates.size(), 1u);
  return g;
}

void ScatterNdDesc::validate(const ScatterNdDesc& d, FeatureLevel level, Findings& f) {
  const uint32_t rank = d.input.rank();
  const std::string what = "tensors.input DimensionCount";
  check_range(f, "SCATTERND.DIMCOUNT", what, rank, dimcount_range(level, false), level);
  check_same_rank(f, "SCATTERND.DIMCOUNT", Role::INDICES, d.indices, what, rank);
  check_same_rank(f, "SCATTERND.DIMCOUNT", Role::UPDATES, d.updates, what, rank);
  check_same_rank(f, "SCATTERND.DIMCOUNT", Role::OUTPUT, d.output, what, rank);
  check_dtype_match(f, "SCATTERND.DTYPE_MATCH", Role::UPDATES, d.updates, d.input);
  check_dtype_match(f, "SCATTERND.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  const uint32_t idc = d.input_dimension_count, xdc = d.indices_dimension_count;
  if (idc < 1 || idc > rank)
    f.invalid("SCATTERND.INPUT_DIMCOUNT", "params.input_dimension_count is " + std::to_string(idc) +
                                              "; it must be in [1, " + std::to_string(rank) +
                                              "] (tensors.input DimensionCount)");
  if (xdc < 1 || xdc > d.indices.rank())
    f.invalid("SCATTERND.INDICES_DIMCOUNT", "params.indices_dimension_count is " + std::to_string(xdc) +
                                                "; it must be in [1, " + std::to_string(d.indices.rank()) +
                                                "] (tensors.indices DimensionCount)");
  check_leading_ones(f, Role::INPUT, d.input, idc, "params.input_dimension_count");
  check_leading_ones(f, Role::INDICES, d.indices, xdc, "params.indices_dimension_count");
  if (d.indices.rank() >= 1) {
    const uint32_t k = d.indices.sizes.back();
    if (k < 1 || k > rank)
      f.invalid("SCATTERND.TUPLE_SIZE", at("tensors.indices.sizes", d.indices.rank() - 1) +
                                            " (tuple size k) is " + std::to_string(k) +
                                            "; it must be in [1, " + std::to_string(rank) +
                                            "] (tensors.input DimensionCount)");
  }
  if (const auto g = d.geometry(); g && g->expected_updates != d.updates.sizes)
    f.invalid("SCATTERND.UPDATES_SHAPE", "tensors.updates.sizes is " + list(d.updates.sizes) +
                                             " but the expected shape is " + list(g->expected_updates));
  check_sizes_equal(f, "SCATTERND.OUTPUT_SHAPE", Role::OUTPUT, d.output, Role::INPUT, d.input);
}

namespace {

// A normalised index tuple, hashed for the duplicate check.
struct TupleHash {
  size_t operator()(const std::vector<uint32_t>& t) const {
    size_t h = 1469598103934665603ull;
    for (uint32_t v : t) h = (h ^ v) * 1099511628211ull;
    return h;
  }
};

}  // namespace

void ScatterNdDesc::check_data(const ScatterNdDesc& d, FeatureLevel level, const InputData& data,
                               Findings& f) {
  const auto g = d.geometry();
  if (!g || !has_logical_data(d.indices, data.indices)) return;
  const bool negative = negative_indices_allowed(d.indices.type, level);
  const size_t es = element_size(d.indices.type);
  const uint64_t tuples = data.indices.size() / es / g->k;
  std::unordered_map<std::vector<uint32_t>, uint64_t, TupleHash> seen;  // tuple -> first tuple number
  std::vector<uint32_t> tuple;
  for (uint64_t t = 0; t < tuples; ++t) {
    tuple.clear();
    for (uint32_t j = 0; j < g->k; ++j) {
      const uint64_t i = t * g->k + j;
      const auto v = integer_value(d.indices.type, data.indices.data() + i * es);
      if (!v) return;  // a float index type: T.DTYPE's business
      const uint32_t dim = g->first_indexed + j;
      const auto idx = resolve_index(*v, d.input.sizes[dim], negative);
      if (!idx) {
        f.unspecified("SCATTERND.INDEX_RANGE",
                      "tensors.indices.data[" + std::to_string(i) + "] is " + to_string(*v) +
                          "; tensors.input.sizes[" + std::to_string(dim) + "] is " +
                          std::to_string(d.input.sizes[dim]) + ", so it must be in " +
                          index_range_text(d.input.sizes[dim], negative));
        break;
      }
      tuple.push_back(*idx);
    }
    if (tuple.size() != g->k) continue;
    const auto [it, inserted] = seen.emplace(tuple, t);
    if (!inserted)
      f.unspecified("SCATTERND.DUPLICATE",
                    "index tuples " + std::to_string(it->second) + " and " + std::to_string(t) +
                        " of tensors.indices.data both address input block " + list(tuple));
  }
}

}  // namespace dmlcert
