// The support tables of SPEC.md ("Support" paragraphs and the REDUCE function-group table), as
// one table of rows checked against the seed pages. A row gives the support of (op, REDUCE
// function group, role) from its table level on; a level uses the row of the highest table level
// at or below it, so "(as 1_0)" entries simply have no row of their own.
#include "dmlcert/support.h"

#include <algorithm>

namespace dmlcert {
namespace {

using enum DataType;

// REDUCE functions share support tables by group (seed: "機能に応じたテンソルサポート").
enum class Group : uint8_t { None, ArgMinMax, AverageL2LogSum, L1SumSquare, MinMax, MultiplySum };

Group group_of(ReduceFunction f) {
  switch (f) {
    case ReduceFunction::ARGMAX:
    case ReduceFunction::ARGMIN: return Group::ArgMinMax;
    case ReduceFunction::AVERAGE:
    case ReduceFunction::L2:
    case ReduceFunction::LOG_SUM:
    case ReduceFunction::LOG_SUM_EXP: return Group::AverageL2LogSum;
    case ReduceFunction::L1:
    case ReduceFunction::SUM_SQUARE: return Group::L1SumSquare;
    case ReduceFunction::MAX:
    case ReduceFunction::MIN: return Group::MinMax;
    case ReduceFunction::MULTIPLY:
    case ReduceFunction::SUM: return Group::MultiplySum;
  }
  return Group::None;
}

using Types = std::vector<DataType>;
const Types kF32F16 = {FLOAT32, FLOAT16};
const Types kSlice1_0 = {FLOAT32, FLOAT16, INT32, INT16, UINT32, UINT16};
// "8 types": everything but the 64-bit types.
const Types k8Types = {FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8};
const Types kAll11 = {FLOAT64, FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8};
const Types kAllButF64 = {FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8};
const Types kIndexTypes = {INT64, INT32, UINT64, UINT32};
const Types kU32 = {UINT32};
const Types kF32F16I32U32 = {FLOAT32, FLOAT16, INT32, UINT32};
const Types kF32F16I64I32U64U32 = {FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32};

struct Row {
  OpKind op;
  Group group;
  Role role;
  FeatureLevel from;
  uint32_t min_rank, max_rank;
  const Types* types;
};

using enum Role;
using L = FeatureLevel;
using G = Group;
using O = OpKind;

// clang-format off
const std::vector<Row> kRows = {
    // SLICE (seed 003).
    {O::SLICE, G::None, INPUT,  L::L1_0, 4, 5, &kSlice1_0}, {O::SLICE, G::None, OUTPUT, L::L1_0, 4, 5, &kSlice1_0},
    {O::SLICE, G::None, INPUT,  L::L2_1, 4, 5, &k8Types},   {O::SLICE, G::None, OUTPUT, L::L2_1, 4, 5, &k8Types},
    {O::SLICE, G::None, INPUT,  L::L3_0, 1, 8, &k8Types},   {O::SLICE, G::None, OUTPUT, L::L3_0, 1, 8, &k8Types},
    {O::SLICE, G::None, INPUT,  L::L4_1, 1, 8, &kAll11},    {O::SLICE, G::None, OUTPUT, L::L4_1, 1, 8, &kAll11},
    // SLICE1 (seed 000).
    {O::SLICE1, G::None, INPUT, L::L2_1, 4, 5, &k8Types},   {O::SLICE1, G::None, OUTPUT, L::L2_1, 4, 5, &k8Types},
    {O::SLICE1, G::None, INPUT, L::L3_0, 1, 8, &k8Types},   {O::SLICE1, G::None, OUTPUT, L::L3_0, 1, 8, &k8Types},
    {O::SLICE1, G::None, INPUT, L::L4_1, 1, 8, &kAll11},    {O::SLICE1, G::None, OUTPUT, L::L4_1, 1, 8, &kAll11},
    // SCATTER_ND (seed 001).
    {O::SCATTER_ND, G::None, INPUT,   L::L2_1, 4, 4, &k8Types}, {O::SCATTER_ND, G::None, INDICES, L::L2_1, 4, 4, &kU32},
    {O::SCATTER_ND, G::None, UPDATES, L::L2_1, 4, 4, &k8Types}, {O::SCATTER_ND, G::None, OUTPUT,  L::L2_1, 4, 4, &k8Types},
    {O::SCATTER_ND, G::None, INPUT,   L::L3_0, 1, 8, &k8Types}, {O::SCATTER_ND, G::None, INDICES, L::L3_0, 1, 8, &kIndexTypes},
    {O::SCATTER_ND, G::None, UPDATES, L::L3_0, 1, 8, &k8Types}, {O::SCATTER_ND, G::None, OUTPUT,  L::L3_0, 1, 8, &k8Types},
    {O::SCATTER_ND, G::None, INPUT,   L::L4_1, 1, 8, &kAll11},  {O::SCATTER_ND, G::None, INDICES, L::L4_1, 1, 8, &kIndexTypes},
    {O::SCATTER_ND, G::None, UPDATES, L::L4_1, 1, 8, &kAll11},  {O::SCATTER_ND, G::None, OUTPUT,  L::L4_1, 1, 8, &kAll11},
    // REDUCE ARGMIN, ARGMAX (seed 002).
    {O::REDUCE, G::ArgMinMax, INPUT, L::L1_0, 4, 4, &kF32F16},    {O::REDUCE, G::ArgMinMax, OUTPUT, L::L1_0, 4, 4, &kU32},
    {O::REDUCE, G::ArgMinMax, INPUT, L::L2_1, 4, 4, &k8Types},    {O::REDUCE, G::ArgMinMax, OUTPUT, L::L2_1, 4, 4, &kU32},
    {O::REDUCE, G::ArgMinMax, INPUT, L::L3_0, 1, 8, &k8Types},    {O::REDUCE, G::ArgMinMax, OUTPUT, L::L3_0, 1, 8, &kIndexTypes},
    {O::REDUCE, G::ArgMinMax, INPUT, L::L4_1, 1, 8, &kAllButF64}, {O::REDUCE, G::ArgMinMax, OUTPUT, L::L4_1, 1, 8, &kIndexTypes},
    // REDUCE AVERAGE, L2, LOG_SUM, LOG_SUM_EXP.
    {O::REDUCE, G::AverageL2LogSum, INPUT, L::L1_0, 4, 4, &kF32F16}, {O::REDUCE, G::AverageL2LogSum, OUTPUT, L::L1_0, 4, 4, &kF32F16},
    {O::REDUCE, G::AverageL2LogSum, INPUT, L::L3_0, 1, 8, &kF32F16}, {O::REDUCE, G::AverageL2LogSum, OUTPUT, L::L3_0, 1, 8, &kF32F16},
    // REDUCE L1, SUM_SQUARE.
    {O::REDUCE, G::L1SumSquare, INPUT, L::L1_0, 4, 4, &kF32F16},             {O::REDUCE, G::L1SumSquare, OUTPUT, L::L1_0, 4, 4, &kF32F16},
    {O::REDUCE, G::L1SumSquare, INPUT, L::L3_0, 1, 8, &kF32F16},             {O::REDUCE, G::L1SumSquare, OUTPUT, L::L3_0, 1, 8, &kF32F16},
    {O::REDUCE, G::L1SumSquare, INPUT, L::L5_0, 1, 8, &kF32F16I64I32U64U32}, {O::REDUCE, G::L1SumSquare, OUTPUT, L::L5_0, 1, 8, &kF32F16I64I32U64U32},
    // REDUCE MIN, MAX.
    {O::REDUCE, G::MinMax, INPUT, L::L1_0, 4, 4, &kF32F16},       {O::REDUCE, G::MinMax, OUTPUT, L::L1_0, 4, 4, &kF32F16},
    {O::REDUCE, G::MinMax, INPUT, L::L2_1, 4, 4, &kF32F16I32U32}, {O::REDUCE, G::MinMax, OUTPUT, L::L2_1, 4, 4, &kF32F16I32U32},
    {O::REDUCE, G::MinMax, INPUT, L::L3_0, 1, 8, &k8Types},       {O::REDUCE, G::MinMax, OUTPUT, L::L3_0, 1, 8, &k8Types},
    {O::REDUCE, G::MinMax, INPUT, L::L5_0, 1, 8, &kAllButF64},    {O::REDUCE, G::MinMax, OUTPUT, L::L5_0, 1, 8, &kAllButF64},
    // REDUCE MULTIPLY, SUM.
    {O::REDUCE, G::MultiplySum, INPUT, L::L1_0, 4, 4, &kF32F16},             {O::REDUCE, G::MultiplySum, OUTPUT, L::L1_0, 4, 4, &kF32F16},
    {O::REDUCE, G::MultiplySum, INPUT, L::L2_1, 4, 4, &kF32F16I32U32},       {O::REDUCE, G::MultiplySum, OUTPUT, L::L2_1, 4, 4, &kF32F16I32U32},
    {O::REDUCE, G::MultiplySum, INPUT, L::L3_0, 1, 8, &kF32F16I32U32},       {O::REDUCE, G::MultiplySum, OUTPUT, L::L3_0, 1, 8, &kF32F16I32U32},
    {O::REDUCE, G::MultiplySum, INPUT, L::L5_0, 1, 8, &kF32F16I64I32U64U32}, {O::REDUCE, G::MultiplySum, OUTPUT, L::L5_0, 1, 8, &kF32F16I64I32U64U32},
    // GATHER_ELEMENTS (seed 004).
    {O::GATHER_ELEMENTS, G::None, INPUT, L::L2_1, 4, 4, &k8Types}, {O::GATHER_ELEMENTS, G::None, INDICES, L::L2_1, 4, 4, &kU32},
    {O::GATHER_ELEMENTS, G::None, OUTPUT, L::L2_1, 4, 4, &k8Types},
    {O::GATHER_ELEMENTS, G::None, INPUT, L::L3_0, 1, 8, &k8Types}, {O::GATHER_ELEMENTS, G::None, INDICES, L::L3_0, 1, 8, &kIndexTypes},
    {O::GATHER_ELEMENTS, G::None, OUTPUT, L::L3_0, 1, 8, &k8Types},
    {O::GATHER_ELEMENTS, G::None, INPUT, L::L4_1, 1, 8, &kAll11},  {O::GATHER_ELEMENTS, G::None, INDICES, L::L4_1, 1, 8, &kIndexTypes},
    {O::GATHER_ELEMENTS, G::None, OUTPUT, L::L4_1, 1, 8, &kAll11},
};
// clang-format on

}  // namespace

bool RoleSupport::allows(DataType t) const {
  return std::find(types.begin(), types.end(), t) != types.end();
}

FeatureLevel introduced_at(OpKind op) {
  return (op == OpKind::SLICE || op == OpKind::REDUCE) ? FeatureLevel::L1_0 : FeatureLevel::L2_1;
}

std::optional<RoleSupport> support(OpKind op, std::optional<ReduceFunction> function, Role role,
                                   FeatureLevel level) {
  if (level < introduced_at(op)) return std::nullopt;
  Group group = Group::None;
  if (op == OpKind::REDUCE) {
    if (!function || !is_valid(*function)) return std::nullopt;
    group = group_of(*function);
  }
  const FeatureLevel table = table_level(level);
  const Row* best = nullptr;
  for (const Row& r : kRows)
    if (r.op == op && r.group == group && r.role == role && r.from <= table && (!best || r.from > best->from))
      best = &r;
  if (!best) return std::nullopt;
  return RoleSupport{best->min_rank, best->max_rank, *best->types};
}

std::vector<SupportCell> support_cells(FeatureLevel level) {
  std::vector<SupportCell> cells;
  for (OpKind op : kAllOps) {
    std::vector<std::optional<ReduceFunction>> functions = {std::nullopt};
    if (op == OpKind::REDUCE)
      functions.assign(std::begin(kAllReduceFunctions), std::end(kAllReduceFunctions));
    for (const auto& function : functions)
      for (Role role : roles(op)) {
        const auto s = support(op, function, role, level);
        if (!s) continue;
        for (DataType type : s->types)
          for (uint32_t rank = s->min_rank; rank <= s->max_rank; ++rank)
            cells.push_back({op, function, role, type, rank});
      }
  }
  return cells;
}

}  // namespace dmlcert
