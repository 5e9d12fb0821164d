// rapidcheck generators of cases: valid (per support-table cell), invalid (one mutator per doc
// and inferred rule ID) and unspecified (one generator per U rule), with data fills. Used by the
// property tests, `dmlcert fuzz` and `dmlcert certify`.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/case.h"
#include "dmlcert/support.h"

namespace dmlcert {
// How rapidcheck prints counterexamples: cases as their case-file JSON, enums by name.
void showValue(const Case& c, std::ostream& os);
void showValue(FeatureLevel l, std::ostream& os);
void showValue(DataType t, std::ostream& os);
void showValue(OpKind op, std::ostream& os);
void showValue(ReduceFunction f, std::ostream& os);
}  // namespace dmlcert

namespace dmlcert::props {

// How input data is filled (docs/semantics.md, "Numbers").
enum class DataMode {
  Exact,    // every summation order gives the same exact result: compared bitwise
  Random,   // compared with docs/semantics.md's error bound
  Special,  // NaN payloads, ±inf, ±0, subnormals, integer extremes, where docs/semantics.md defines them
};

std::string_view name(DataMode m);  // "exact", "random", "special"

// Related cases (docs/design.md, "Certification"): sampled at the same seed, a generator with a
// variation makes a case of the same shape as without it (every size and parameter the same)
// with other layouts or other data. So does the same generator with another fixed data type or
// at another feature level where the cell exists, and at another size the same proportions grow.
struct Variation {
  uint64_t layout_salt = 0;  // nonzero: other strides, padding, broadcast dimensions and slack
  uint64_t data_salt = 0;    // nonzero: other data and index values
  // For a data cell of an operator with indices: their type, when the backend takes some only
  // (Backend::implements_index_type). Unset: any the table allows.
  std::optional<DataType> index_type = std::nullopt;
};

// How large a valid case is: drawn (most cases a few thousand elements at most, a few in a hundred
// up to 2^18 elements, build.h's Magnitude); huge: an output (REDUCE: an input) of tens of MiB,
// past the caches of a CPU, where fast kernels switch to streaming stores; or at the edge of an
// integer width: one dimension just past 2^8, 2^15 or 2^16 (a uint8, an int16 or a uint16 field
// wraps there), with the positions the answer depends on past it too (a read offset, an index, a
// tuple component, an ARGMAX's answer), over inputs with no broadcast dimension, so that a
// wrapped position reads another value. It costs that one dimension: at most 2^16 + 64 elements.
//
// The packed sizes are the layout fast kernels take their vector and streaming paths on: every
// tensor packed row-major with no slack past its last element, so that a last partial vector
// (an unmasked tail) ends past the binding, and no input broadcast, so that a copy can be one
// stream. Large-packed: large (2^7 to 2^18 elements), the count in the innermost dimension (for
// GATHER_ELEMENTS, gathered along it half the time); huge-packed: huge, the input read in full.
enum class CaseSize { Drawn, Huge, PastUint8, PastInt16, PastUint16, LargePacked, HugePacked };
inline constexpr CaseSize kWidthEdgeSizes[] = {CaseSize::PastUint8, CaseSize::PastInt16,
                                               CaseSize::PastUint16};
// The exponent of a width-edge size (8, 15 or 16), 0 for the others.
uint32_t edge_exponent(CaseSize size);

// A valid case at `level`, any operator in `ops` (all when empty).
rc::Gen<Case> valid_case(FeatureLevel level, std::vector<OpKind> ops = {});
// A valid case that exercises one support-table cell (its op/function, role, type and rank).
rc::Gen<Case> valid_case_for_cell(const SupportCell& cell, FeatureLevel level, DataMode mode,
                                  Variation variation = {}, CaseSize size = CaseSize::Drawn);
// The cells of `level` (of the operators in `ops`, all when empty) a certification asks for huge
// cases, `per_operator` of each operator: the element sizes 8, 1, 4 and 2 (REDUCE: 4, 1, 8, 2) in turn (a
// streaming kernel's head and tail count bytes and words), rank 2 first; for REDUCE, SUM, MAX and MIN first.
std::vector<SupportCell> huge_cells(FeatureLevel level, const std::vector<OpKind>& ops, int per_operator);
// The cases of `gen` asked at another feature level: the same descriptor and data, classified
// there by the validator (valid, invalid or class U; `expect` and `violates` say which).
rc::Gen<Case> at_level(rc::Gen<Case> gen, FeatureLevel level);
// A valid case mutated to break exactly the rule `rule_id` (a doc or inferred rule). The case's
// `violates` names it. Returns nullopt when the rule cannot be broken at this level for any op
// in `ops` (e.g. OP.FEATURE_LEVEL at 2_1 for SLICE).
std::optional<rc::Gen<Case>> invalid_case(std::string_view rule_id, FeatureLevel level,
                                          std::vector<OpKind> ops = {});
// A class U case for the U rule `rule_id` (its `violates` names it), or nullopt when not
// reachable at this level.
std::optional<rc::Gen<Case>> unspecified_case(std::string_view rule_id, FeatureLevel level,
                                              std::vector<OpKind> ops = {});
// A valid case of `cell` (an indices cell of an operator that reads indices) with one index element,
// and every element that shares its memory, set to an extreme of the index type, by
// rep % kIndexExtremes: its maximum (0), its minimum or 2^31 (1), -2^31 or 2^31 (2), or the value j
// the element held plus 2^32 (3), 2^31 (4), 2^16 (5) or 2^8 (6), the edges of narrower fields
// (the maximum where the type cannot hold that, or the sum is still in range). Class U under
// `rule` (the operator's INDEX_RANGE rule), which `violates` names: the values no generator of
// valid cases makes.
inline constexpr int kIndexExtremes = 7;
rc::Gen<Case> extreme_index_case(const SupportCell& cell, FeatureLevel level, int rep, std::string rule);
// The operators of `ops` (all when empty) for which invalid_case() (or unspecified_case()) can
// break the rule at the level.
std::vector<OpKind> rule_operators(std::string_view rule_id, FeatureLevel level, bool invalid,
                                   const std::vector<OpKind>& ops = {});
// The rule IDs invalid_case()/unspecified_case() can produce at a level.
std::vector<std::string> invalid_rules(FeatureLevel level, const std::vector<OpKind>& ops = {});
std::vector<std::string> unspecified_rules(FeatureLevel level, const std::vector<OpKind>& ops = {});

// One valid case shape that exercises several support-table cells at once: every role of
// (op, function) at one rank, with the data type on the data roles and the index type on the
// indices (or ARGMAX/ARGMIN output) role. cell_targets() lists targets that together reach every
// cell of support_cells(level) for the ops; `dmlcert fuzz` walks them round-robin.
struct CellTarget {
  OpKind op;
  std::optional<ReduceFunction> function;
  DataType data_type;
  std::optional<DataType> index_type;
  uint32_t rank;
};
std::vector<CellTarget> cell_targets(FeatureLevel level, const std::vector<OpKind>& ops = {});
rc::Gen<Case> valid_case_for_target(const CellTarget& target, FeatureLevel level, DataMode mode);
// The support-table cells a case's descriptor exercises at its level (one per role whose
// (op, function, role, type, rank) is a cell of support_cells(table_level(level))).
std::vector<SupportCell> cells_of(const Case& c);

// A seed derived from two others (splitmix64): the seed of case `index` of a run, say.
uint64_t mix_seed(uint64_t a, uint64_t b);

// Deterministic sampling outside a property: the same (gen, seed, size) gives the same case, and the
// same shrinks.
inline rc::Shrinkable<Case> sample(const rc::Gen<Case>& gen, uint64_t seed, int size) {
  return gen(rc::Random(seed), size);
}

// Rewrites of a case that keep what it means (the engine's shrinker squeezes and tidies with them).
// The same logical case one rank higher: a leading dimension of size 1 on every tensor, the
// per-dimension parameters extended with their unit entries and the axes moved along.
void prepend_unit_dim_everywhere(Case& c);
// Its inverse, where every tensor's first dimension is 1: false (and `c` not to be used) when the
// parameters pin that dimension (an axis on it, nothing else to reduce, a count of every
// dimension). Where it succeeds, the result is the same, byte for byte.
bool drop_leading_unit_dim_everywhere(Case& c);
// Strides as a person would write them, every address the same: a dimension of size 1 (whose
// stride addresses nothing) gets the stride that places it right outside the dimensions inside it,
// as they are (left alone where that does not fit 32 bits), and strides that are then packed
// row-major are dropped. False when there was nothing to tidy.
bool tidy_strides(Case& c);

}  // namespace dmlcert::props
