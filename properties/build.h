// Internals shared by the per-operator generators: what a generated case must have (CaseSpec),
// a rank-aware dimension generator whose shrinks remove whole dimensions, tensor layouts, data
// fills and a small deterministic PRNG for turning raw random choices into descriptors.
//
// Every generator here is a tuple of independent "raw" choices (small integers that shrink
// towards 0) mapped through a deterministic realize step. rapidcheck shrinks each raw choice
// while keeping the others, so a failing case shrinks dimension by dimension, size by size,
// towards rank 1, size 1 and simple data.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/case.h"
#include "dmlcert/support.h"
#include "generators.h"

namespace dmlcert::props {

// What a generated valid case must have; unset fields are chosen by the generator.
struct CaseSpec {
  FeatureLevel level = kDefaultFeatureLevel;
  OpKind op = OpKind::SLICE;
  std::optional<ReduceFunction> function;  // REDUCE only; unset means any function
  std::optional<DataType> data_type;       // input (and output, updates) data type
  // Indices type (SCATTER_ND, GATHER_ELEMENTS) or ARGMAX/ARGMIN output type.
  std::optional<DataType> index_type;
  std::optional<uint32_t> rank;
  uint32_t min_rank = 1;  // an extra lower bound, for mutators that need two dimensions
  std::optional<DataMode> mode;
  bool allow_broadcast_inputs = true;
  bool allow_negative_indices = true;
  // Related cases (generators.h, Variation): nonzero salts change the layouts or the data while
  // every choice of the shape stays as the seed made it.
  uint64_t layout_salt = 0;
  uint64_t data_salt = 0;
  // A huge case (Scale::Huge, magnitude.cpp) instead of one whose magnitude is drawn.
  bool huge = false;
  // Nonzero: a width-edge case (CaseSize::PastUint8 ...) instead: one dimension just past 2^edge,
  // and the positions the answer depends on past 2^edge too (Magnitude::edge).
  uint32_t edge = 0;
  // A large case (Scale::Large) instead of one whose magnitude is drawn.
  bool large = false;
  // Every tensor packed with no slack, the count in the innermost dimension (CaseSize::LargePacked,
  // HugePacked): what fast kernels take their vector and streaming paths on.
  bool packed = false;
};

// A deterministic 64-bit generator (splitmix64) for the realize steps.
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n); n must be > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  bool coin() { return (next() & 1) != 0; }

 private:
  uint64_t state_;
};

// The ranks every role of the spec's op/function allows at its level, narrowed by spec.rank and
// spec.min_rank. Empty when the operator does not exist at the level.
struct RankRange {
  uint32_t lo = 1, hi = 0;
  // The lowest rank a shrink may reach: lo without spec.rank, so that a failure found in one
  // support-table cell (a fixed rank) can still shrink to fewer dimensions for its repro.
  uint32_t shrink_lo = 1;
  bool empty() const { return lo > hi; }
};
RankRange rank_range(const CaseSpec& spec);

// The types allowed for one role, or empty.
std::vector<DataType> role_types(const CaseSpec& spec, Role role);
// Types legal for every role in `roles` at once.
std::vector<DataType> common_types(const CaseSpec& spec, const std::vector<Role>& roles);
// rapidcheck generator for a type: the fixed one when given, else one of `allowed`.
rc::Gen<DataType> type_gen(std::optional<DataType> fixed, const std::vector<DataType>& allowed);

// A vector of lo..hi elements. Shrinks remove elements (never below shrink_lo) and shrink each
// element, so rank shrinks keep the remaining dimensions as they were.
template <class T>
rc::Gen<std::vector<T>> ranked(uint32_t lo, uint32_t hi, uint32_t shrink_lo, rc::Gen<T> element) {
  return rc::Gen<std::vector<T>>([=](const rc::Random& random, int size) {
    rc::Random r(random);
    const uint32_t count = lo + static_cast<uint32_t>(r.split().next() % (hi - lo + 1));
    using Elements = std::vector<rc::Shrinkable<T>>;
    Elements elements;
    for (uint32_t i = 0; i < count; ++i) elements.push_back(element(r.split(), size));
    return rc::shrinkable::map(
        rc::shrinkable::shrinkRecur(
            std::move(elements),
            [shrink_lo](const Elements& es) {
              return rc::seq::concat(
                  rc::seq::filter(rc::shrink::removeChunks(es),
                                  [shrink_lo](const Elements& e) { return e.size() >= shrink_lo; }),
                  rc::shrink::eachElement(es, [](const rc::Shrinkable<T>& s) { return s.shrinks(); }));
            }),
        [](const Elements& es) {
          std::vector<T> v;
          v.reserve(es.size());
          for (const auto& s : es) v.push_back(s.value());
          return v;
        });
  });
}

template <class T>
rc::Gen<std::vector<T>> ranked(uint32_t lo, uint32_t hi, rc::Gen<T> element) {
  return ranked(lo, hi, lo, std::move(element));
}
// The same over a spec's rank range (generated in [lo, hi], shrinking down to shrink_lo).
template <class T>
rc::Gen<std::vector<T>> ranked(const RankRange& ranks, rc::Gen<T> element) {
  return ranked(ranks.lo, ranks.hi, std::min(ranks.shrink_lo, ranks.lo), std::move(element));
}

// A raw choice in [0, n) that shrinks towards 0 (rapidcheck narrows the range at small sizes).
rc::Gen<uint32_t> raw(uint32_t n = 1u << 16);
// A dimension's raw size choice: in [0, 2^16) at every size, so that budgeted_sizes() scales it
// into the whole range a budget allows.
rc::Gen<uint32_t> raw_size();
// The element budget of one tensor for rapidcheck's size parameter: sizes grow with it.
uint64_t element_budget(int size);
// How a tensor's element budget is shared among its dimensions. Dimensions draw from it in an
// order set by `order` (0, where shrinks go: outermost first), so that no position always draws
// last; with `spread` (three cases in four), each dimension's cap is its fair share of what is
// left (the remaining budget's n-th root for n dimensions left, plus two), so that high ranks get
// several dimensions larger than 1, the innermost included, instead of one large outer dimension.
struct SizeBudget {
  uint64_t elements = 4;
  uint32_t order = 0;
  bool spread = false;
};
rc::Gen<SizeBudget> budget_gen();
// Sizes from raw choices: size i is raw[i] scaled into [1, cap_i], where the cap keeps the product
// within the budget (and each size <= 64).
uint32_t budgeted_size(uint32_t raw_choice, uint64_t& remaining_budget);
Sizes budgeted_sizes(const std::vector<uint32_t>& raw_choices, const SizeBudget& budget);

// ---- magnitude.cpp: sizes across magnitudes --------------------------------------------------
// Most cases spend the element budget above (a few thousand elements at most). A few in a hundred
// are drawn at another scale, and a certification asks some cells for huge cases (CaseSpec::huge):
//  - large: a count at a power of two or next to one (2^k - 1, 2^k, 2^k + 1, or 2^k plus or minus a
//    remainder below 64, what vector widths and thread counts leave over), from 2^7 to 2^18
//    elements at rapidcheck's size 25 and above (to 2^11 at size 3), shared among the dimensions
//    so that one of them, the innermost half the time, holds most of it;
//  - sparse: one input dimension at an edge of an integer width (2^8, 2^15, 2^16, 2^17, each
//    with its neighbours) read at a few places, offsets, strides and index values near those edges
//    (past 2^16 where the dimension reaches 2^17), at the cost of that one dimension, which is
//    never broadcast;
//  - huge: an output of tens of MiB, past the caches of a CPU (huge_elements()).
// Which one a case gets shrinks towards the ordinary scale, its exponent towards the smallest.
enum class Scale : uint8_t { Ordinary, Large, Sparse, Huge };
struct Magnitude {
  Scale scale = Scale::Ordinary;
  uint32_t exponent = 0;  // raw: which power of two
  uint32_t nudge = 0;     // raw: which neighbour of it (0: the power itself)
  uint32_t split = 0;     // raw: how a count is shared among the dimensions
  int size = 0;           // rapidcheck's size when drawn (bounds the exponent)
  uint32_t halvings = 0;  // a huge case's count is huge_elements() halved this often (its shrinks)
  // Nonzero (a sparse case that CaseSpec::edge asked for): the dimension is 2^edge + 1 plus a
  // remainder below 64, and every generator puts a position the answer depends on past 2^edge
  // (past_edge): a read offset, an index, a tuple component, the decisive element of a fold.
  uint32_t edge = 0;
};
rc::Gen<Magnitude> magnitude_gen(const CaseSpec& spec);
uint32_t max_large_exponent(int size);
uint32_t large_exponent(const Magnitude& m);   // in [7, max_large_exponent(m.size)]
uint32_t sparse_exponent(const Magnitude& m);  // one of 8, 15, 16, 17 (those within the maximum)
// The extent of a sparse case's one long dimension: near_power(sparse_exponent(m), m.nudge), or
// for a width-edge case 2^edge + 1 + (m.nudge % 63).
uint64_t sparse_extent(const Magnitude& m);
// A position in [2^edge, extent) by `choice`, for a width-edge case (extent > 2^edge).
uint64_t past_edge(uint32_t edge, uint64_t extent, uint64_t choice);
// 2^exponent or a neighbour of it, by `nudge`.
uint64_t near_power(uint32_t exponent, uint32_t nudge);
// `rank` sizes whose product is near_power(exponent, m.nudge), or 2^j times near_power(exponent -
// j, m.nudge) with the 2^j on the other dimensions as powers of two.
Sizes shape_near_power(const Magnitude& m, uint32_t exponent, uint32_t rank);
// One of 2^e - 1, 2^e, 2^e + 1 for e in 8, 15, 16, 17, 31, 32 below `limit`, by `choice`
// (limit - 1 when there is none).
uint64_t width_edge(uint32_t choice, uint64_t limit);
// A huge case's output elements of the type: 56 MiB, at most 2^23 elements; REDUCE's input
// elements: 56 MiB, at most 2^24.
uint64_t huge_elements(DataType type);
uint64_t huge_reduce_elements(DataType type);

// A huge case with at most `elements` output elements: `describe` gives its descriptors (no data) for
// a count, which is scaled down until the case's cost estimate (case_footprint) fits the default
// --max-case-bytes with a margin. The caller fills the data of the one it returns.
Case huge_case(uint64_t elements, const std::function<Case(uint64_t elements)>& describe);

// ---- windows.cpp: the shape SLICE and SLICE1 share -------------------------------------------
// One dimension's raw choices; all shrink towards 0, which realizes to size 1, stride 1.
struct WindowChoice {
  uint32_t in = 0, window = 0, offset = 0, stride = 0, count = 0;
  uint8_t stride_kind = 0;  // 0: within the window, 1: beyond it, 2: at a 32-bit edge
  bool negative = false;    // a negative stride, for the operators that take one
  uint8_t edge = 0;  // 0: random, 1: the whole input as the window and the most elements, 2: at the end
};
// One dimension realized: Output[c] reads Input[offset + stride * c] for a positive stride, and
// walks from the window's last element for a negative one.
struct WindowDim {
  uint32_t in = 1, offset = 0, window = 1, count = 1;
  int64_t stride = 1;   // its magnitude reaches 2^32-1 where the dimension reads one element
  bool at_end = false;  // the window (for SLICE, the last read) touches the input's end
};
// What an operator of the family makes of the dimensions.
struct WindowOperator {
  bool negative_strides = false;
  // A stride at a 32-bit edge, of either sign where the operator takes negative ones.
  int64_t (*edge_stride)(uint32_t choice, bool negative) = nullptr;
  OperatorDesc (*describe)(const std::vector<WindowDim>& dims, TensorDesc input, TensorDesc output) = nullptr;
};
rc::Gen<Case> window_case(const CaseSpec& spec, const WindowOperator& op);

// ---- layout.cpp: strides and padding -------------------------------------------------------
struct LayoutSpec {
  uint8_t kind = 0;  // 0 packed (no strides) .. see layout.cpp
  uint32_t seed = 0;
  uint8_t extra_words = 0;  // TotalTensorSizeInBytes beyond the minimum, in 4-byte words
};
// input_role: 0-stride broadcast dimensions are allowed (T.OUTPUT_OVERLAP forbids them on outputs).
// A nonzero salt redraws the layout (kind, padding, slack) from the drawn one, for related cases.
// With `packed`, always packed with no slack (CaseSpec::packed).
rc::Gen<LayoutSpec> layout_gen(bool input_role, bool allow_broadcast = true, uint64_t salt = 0,
                               bool packed = false);
TensorDesc realize_layout(DataType type, const Sizes& sizes, const LayoutSpec& spec, bool input_role);
// The tensor with every dimension but `dim` broadcast (0 strides) and `dim` packed: a huge input
// that streams one long dimension from memory and binds only it.
TensorDesc broadcast_except(TensorDesc t, size_t dim);
// Copies, for every group of logical elements that share memory (0 strides), the first one's value
// to the others (docs/case-format.md: elements that share memory must be equal).
void share_broadcast_elements(const TensorDesc& t, Bytes& logical);
// Whether two coordinates of t map to one element (T.OUTPUT_OVERLAP).
bool has_overlap(const TensorDesc& t);

// ---- fill.cpp: data ------------------------------------------------------------------------
struct FillSpec {
  DataMode mode = DataMode::Exact;
  uint64_t seed = 0;
  uint32_t magnitude = 0;  // 0 is the simplest data; shrinks towards 0
};
// A nonzero salt gives other data of the same mode and magnitude, for related cases.
rc::Gen<FillSpec> fill_gen(std::optional<DataMode> mode, uint64_t salt = 0);
// Data for a data-movement operator (any bit pattern the mode allows).
Bytes fill_movement(DataType type, uint64_t count, const FillSpec& spec);
// REDUCE input data for groups of n elements that keeps every result and partial result
// (in any summation order) inside docs/semantics.md's valid range; Exact mode keeps sums exact.
Bytes fill_reduce(ReduceFunction f, DataType type, uint64_t count, uint64_t n, const FillSpec& spec);
// Random integer SUM, L1 and SUM_SQUARE data (fill_reduce) with two elements replaced by odd values
// past 2^24 (32-bit types) or 2^53 (64-bit ones), where a float or double accumulator stops being
// exact; every group still fits the type. Only for data whose logical elements are all distinct
// memory (no 0 strides): a shared element would count more than twice in a group.
void widen_some(ReduceFunction f, DataType type, Bytes& data, const FillSpec& spec);
// REDUCE data for folds longer than 2^8 (most of them): one element of each decides the result,
// at a position next to an integer width's edge (2^8, 2^15, 2^16, 2^17 and their neighbours) or
// at the fold's end: for MIN, MAX, ARGMIN and ARGMAX the only one at the type's extreme; for float
// SUM, AVERAGE, L1, SUM_SQUARE and L2 one as large as the others together (in Exact mode, the
// fold's largest magnitude again). A backend that wraps a position in a narrow field or leaves out
// a fold's last elements then differs by far more than the error bound. Only for data whose
// logical elements are all distinct memory (no 0 strides), like widen_some(). (lone_element.cpp)
// With `edge` (a width-edge case), every fold gets its element, past 2^edge.
void plant_lone_element(ReduceFunction f, DataType type, const Sizes& sizes,
                        const std::vector<uint32_t>& axes, Bytes& data, const FillSpec& spec,
                        uint32_t edge = 0);
// The largest finite value of a float type.
double float_max(DataType type);
// Index data as the index type; values must fit it.
Bytes encode_indices(DataType index_type, const std::vector<int64_t>& values);
std::vector<int64_t> decode_indices(DataType index_type, const Bytes& data);
// SCATTERND/GATHERELEMENTS.INDEX_RANGE: negative indices are legal from 3_0 for signed types.
bool negative_indices_legal(FeatureLevel level, DataType index_type);
// The value v (in [0, d)) written either as v or, where legal and the coin says so, as v - d.
int64_t maybe_negative(int64_t v, int64_t d, bool negative);

// ---- per-operator generators (one file each) -----------------------------------------------

// The random choices a mutation makes, drawn by rapidcheck so that the shrinker sees them: each
// choice shrinks towards 0, which is the first option (the first role, the first dimension, the
// smallest change). Choices past the drawn ones are 0.
class Choices {
 public:
  explicit Choices(std::vector<uint32_t> raw) : raw_(std::move(raw)) {}
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }  // in [0, n)
  bool coin() { return below(2) == 1; }
  uint64_t next() { return at_ < raw_.size() ? raw_[at_++] : 0; }

 private:
  std::vector<uint32_t> raw_;
  size_t at_ = 0;
};
rc::Gen<std::vector<uint32_t>> choices_gen();

// How a valid case becomes a case of one rule: invalid (a doc or inferred rule broken) or class
// U. One mechanism for both (mutators.cpp).
struct Mutator {
  std::string_view rule;
  // Whether the rule can be reached at the level for the operator (it exists there unless this
  // says otherwise). Null: whenever the operator exists.
  std::function<bool(OpKind, FeatureLevel)> applicable;
  std::function<void(CaseSpec&)> prepare;    // adjusts the base valid case's spec
  std::function<bool(const Case&)> base_ok;  // the base cases the mutation needs; null: any
  std::function<void(Case&, Choices&)> mutate;
};

// What the generators know of one operator, in the operator's own file: its valid cases and a
// mutator for each of its own rules.
struct OperatorGenerators {
  std::function<rc::Gen<Case>(const CaseSpec&)> valid;
  std::vector<Mutator> invalid, unspecified;
};
#define DMLCERT_OPERATOR_GENERATORS(KIND, stem, Desc) OperatorGenerators stem##_generators();
DMLCERT_FOR_EACH_OPERATOR(DMLCERT_OPERATOR_GENERATORS)
#undef DMLCERT_OPERATOR_GENERATORS
const OperatorGenerators& generators_of(OpKind op);

// The functions (REDUCE) that can produce a case matching the spec's fixed types at its level.
std::vector<ReduceFunction> functions_for(const CaseSpec& spec);
// A valid case for the spec, which must be satisfiable (see spec_satisfiable).
rc::Gen<Case> case_for_spec(const CaseSpec& spec);
bool spec_satisfiable(const CaseSpec& spec);

// ---- mutate.cpp: edits the mutators share ------------------------------------------------------
// The operator's own descriptor in a case.
template <class D>
D& as(Case& c) {
  return std::get<D>(c.op);
}
// A leading dimension of size 1 on one tensor (strides too, when it has them).
void prepend_unit(TensorDesc& t);
// One more entry in every per-dimension parameter than the tensors have dimensions.
void append_param_entry(Case& c);
// A DIMCOUNT rule of per-dimension parameters broken one of three ways: the output or the input
// one rank higher, or the parameters one entry longer.
void break_dimension_count(Case& c, Choices& choices);
// Another type legal for the role (so that only a match rule breaks), or any other type.
DataType other_type(const Case& c, Role role, DataType current, Choices& choices);
// Retypes or resizes a tensor, keeping its layout valid and refilling its data.
void retype(Case& c, Role role, DataType type, Choices& choices);
void resize(Case& c, Role role, uint32_t dim, uint32_t size, Choices& choices);
void ensure_strides(TensorDesc& t);
Role pick_role(const Case& c, Choices& choices);
uint32_t pick_dim(const TensorDesc& t, Choices& choices);
// Out of range, but `valid` again in a field of 8, 16 or 31 bits: valid + 2^8, + 2^16, + 2^31, or
// 2^32 - 1. A backend that keeps an axis, a count or a function in a narrow field reads the case as
// the valid one it was (`valid` must be below 2^31).
uint32_t past_a_width(uint32_t valid, Choices& choices);
// A dimension's size made larger: by one, or one time in four by 2^8 or 2^16, which a field of 8 or
// 16 bits would not see, when the tensor then holds at most `most_elements` elements.
uint32_t grown_size(const TensorDesc& t, uint32_t dim, uint64_t most_elements, Choices& choices);
// A window's offset moved 2^8 or 2^16 on, so that the window (its last element `span` - 1 past the
// offset) leaves an input dimension of size `limit` while a field of 8 or 16 bits keeps the valid
// offset. False, changing nothing, when even 2^16 keeps the window inside.
bool offset_past_a_width(uint32_t& offset, uint64_t span, uint32_t limit, Choices& choices);
// Outputs grow past a width while they stay below 2^31 elements (no T.ELEMENT_LIMIT); an invalid
// case binds at most 1 MiB of them. Inputs, whose data a case lists, stay within 2^20.
inline constexpr uint64_t kMostGrownOutput = uint64_t{1} << 31, kMostGrownInput = uint64_t{1} << 20;
// One output dimension larger (grown_size).
void grow_output(Case& c, Choices& choices);
// The output retyped away from the input's type (a DTYPE_MATCH rule).
void output_type_differs(Case& c, Choices& choices);
// The base case has some dimension of size >= 2 (on any tensor / on the output).
bool has_big_dim(const Case& c);
bool has_big_output_dim(const Case& c);

// A case skeleton with the level, op and class set.
Case new_case(const CaseSpec& spec, OperatorDesc op);
// Helpers for mutators: recompute total_bytes for a tensor's current sizes, strides and type
// (keeping the layout), and refill one input role's data to match its sizes and type (indices
// get 0, which is in range for every dimension).
void refresh_total_bytes(TensorDesc& t);
void refill_input(Case& c, Role role, uint64_t seed);

}  // namespace dmlcert::props
