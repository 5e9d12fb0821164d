// The validator. It runs on arbitrary user input (case files, fuzzers, plugins' descriptors), so
// every array access is guarded against malformed descriptors and every size computation is done
// in 128-bit arithmetic: a bad descriptor yields violations, never undefined behaviour.
#include "dmlcert/validate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>

#include "dmlcert/reduce_groups.h"
#include "dmlcert/rules.h"
#include "dmlcert/support.h"

namespace dmlcert {

bool Validation::has(std::string_view rule) const {
  auto match = [rule](const Violation& v) { return v.rule == rule; };
  return std::any_of(invalid.begin(), invalid.end(), match) ||
         std::any_of(unspecified.begin(), unspecified.end(), match);
}

const Bytes& InputData::of(Role r) const {
  static const Bytes kNone;
  switch (r) {
    case Role::INPUT: return input;
    case Role::INDICES: return indices;
    case Role::UPDATES: return updates;
    case Role::OUTPUT: return kNone;
  }
  return kNone;
}

namespace {

using u128 = unsigned __int128;
constexpr uint64_t kElementLimit = 0xFFFFFFFFull;  // T.ELEMENT_LIMIT: 2^32-1

std::string to_string(u128 v) {
  if (v == 0) return "0";
  std::string s;
  for (; v != 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return s;
}

template <class V>
std::string list(const V& v) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << +v[i];
  o << ']';
  return o.str();
}

std::string tensor_path(Role r) {
  return "tensors." + std::string(name(r));
}

struct Findings {
  Validation v;
  void invalid(std::string_view rule, std::string message) {
    v.invalid.push_back({std::string(rule), std::move(message)});
  }
  void unspecified(std::string_view rule, std::string message) {
    v.unspecified.push_back({std::string(rule), std::move(message)});
  }
};

bool strides_match_rank(const TensorDesc& t) {
  return !t.strides || t.strides->size() == t.sizes.size();
}
bool has_zero_size(const TensorDesc& t) {
  return std::find(t.sizes.begin(), t.sizes.end(), 0u) != t.sizes.end();
}

// dot(Sizes-1, Strides) + 1, exactly: each term is below 2^64 and there are at most 2^32 terms
// in any descriptor we can hold, so the 128-bit sum cannot overflow. nullopt when the span is
// not defined (a 0 size, or strides with the wrong count).
std::optional<u128> exact_span(const TensorDesc& t) {
  if (has_zero_size(t) || !strides_match_rank(t)) return std::nullopt;
  const auto strides = effective_strides(t);
  u128 span = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) span += static_cast<u128>(t.sizes[i] - 1) * strides[i];
  return span;
}

// T.OUTPUT_OVERLAP. Returns why two coordinates of t may share an element, or nullopt when its
// strides provably map distinct coordinates to distinct elements. The check:
//  1. Dimensions of size 1 take part in no collision; drop them. A 0 stride on a dimension of
//     size > 1 aliases at once.
//  2. Peel from the top: when the largest remaining stride exceeds the largest offset all other
//     remaining dimensions reach together (sum of (size-1)*stride), two coordinates that differ
//     in that dimension cannot collide, so the dimension is dropped; repeat. Packed and padded
//     layouts (any permutation) peel away completely.
//  3. Whatever remains (two or more dimensions with interleaved spans) is decided exactly by
//     enumerating its offsets when it has at most 2^20 coordinates. Beyond that the check stays
//     conservative and reports "may alias" (class U) without a witness.
std::optional<std::string> output_alias(const TensorDesc& t) {
  if (!t.strides || !strides_match_rank(t) || has_zero_size(t)) return std::nullopt;
  const auto& strides = *t.strides;
  struct Dim {
    size_t index;
    uint64_t size, stride;
  };
  std::vector<Dim> dims;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] <= 1) continue;
    if (strides[i] == 0)
      return "tensors.output.strides[" + std::to_string(i) + "] is 0 while tensors.output.sizes[" +
             std::to_string(i) + "] is " + std::to_string(t.sizes[i]);
    dims.push_back({i, t.sizes[i], strides[i]});
  }
  std::sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) {
    return a.stride != b.stride ? a.stride < b.stride : a.index < b.index;
  });
  while (!dims.empty()) {
    u128 rest = 0;
    for (size_t j = 0; j + 1 < dims.size(); ++j) rest += static_cast<u128>(dims[j].size - 1) * dims[j].stride;
    if (dims.back().stride <= rest) break;
    dims.pop_back();
  }
  if (dims.empty()) return std::nullopt;
  u128 count = 1;
  for (const Dim& d : dims) count *= d.size;  // at most 8 factors below 2^32
  if (count > (u128{1} << 20)) {
    std::string names;
    for (const Dim& d : dims) names += (names.empty() ? "" : ", ") + std::to_string(d.index);
    return "tensors.output.strides " + list(strides) + " interleave dimensions " + names +
           "; they may map two coordinates to one element";
  }
  // Offsets stay below 8 * 2^20 * 2^32 < 2^64 because count bounds every size here.
  std::vector<std::pair<uint64_t, uint64_t>> offsets;  // (offset, row-major index over dims)
  offsets.reserve(static_cast<size_t>(count));
  for (uint64_t flat = 0; flat < static_cast<uint64_t>(count); ++flat) {
    uint64_t rem = flat, off = 0;
    for (size_t j = dims.size(); j-- > 0;) {
      off += (rem % dims[j].size) * dims[j].stride;
      rem /= dims[j].size;
    }
    offsets.emplace_back(off, flat);
  }
  std::sort(offsets.begin(), offsets.end());
  for (size_t j = 1; j < offsets.size(); ++j) {
    if (offsets[j].first != offsets[j - 1].first) continue;
    auto coord = [&](uint64_t flat) {
      Coord c(t.sizes.size(), 0);
      for (size_t k = dims.size(); k-- > 0;) {
        c[dims[k].index] = static_cast<uint32_t>(flat % dims[k].size);
        flat /= dims[k].size;
      }
      return c;
    };
    return "tensors.output.strides " + list(strides) + " map coordinates " +
           list(coord(offsets[j - 1].second)) + " and " + list(coord(offsets[j].second)) +
           " to element offset " + std::to_string(offsets[j].first);
  }
  return std::nullopt;
}

// T.* rules for one tensor. `s` is the support-table entry (nullopt: the table does not apply).
void check_tensor(Findings& f, Role role, const TensorDesc& t, const std::optional<RoleSupport>& s,
                  std::string_view where) {
  const std::string p = tensor_path(role);
  if (s && (t.rank() < s->min_rank || t.rank() > s->max_rank))
    f.invalid("T.RANK", p + ".sizes has " + std::to_string(t.rank()) + " dimensions; " + std::string(where) +
                            " supports " + std::to_string(s->min_rank) + ".." + std::to_string(s->max_rank));
  if (s && !s->allows(t.type)) {
    std::string allowed;
    for (DataType d : s->types) allowed += (allowed.empty() ? "" : " ") + std::string(name(d));
    f.invalid("T.DTYPE", p + ".type is " + std::string(name(t.type)) + "; " + std::string(where) +
                             " supports " + allowed);
  }
  for (size_t i = 0; i < t.sizes.size(); ++i)
    if (t.sizes[i] == 0) f.invalid("T.SIZE_ZERO", p + ".sizes[" + std::to_string(i) + "] is 0");
  if (!strides_match_rank(t))
    f.invalid("T.STRIDES_COUNT", p + ".strides has " + std::to_string(t.strides->size()) + " entries but " +
                                     p + ".sizes has " + std::to_string(t.sizes.size()));
  const auto span = exact_span(t);
  if (span && *span > kElementLimit)
    f.invalid("T.ELEMENT_LIMIT", p + ": dot(sizes-1, strides)+1 is " + to_string(*span) +
                                     ", above 2^32-1 = " + std::to_string(kElementLimit));
  if (t.total_bytes % 4 != 0)
    f.invalid("T.TOTAL_BYTES",
              p + ".total_bytes is " + std::to_string(t.total_bytes) + ", not a multiple of 4");
  if (span) {
    const u128 min_bytes = (*span * element_size(t.type) + 3) / 4 * 4;
    if (t.total_bytes < min_bytes)
      f.invalid("T.TOTAL_BYTES", p + ".total_bytes is " + std::to_string(t.total_bytes) +
                                     ", below the minimum implied size " + to_string(min_bytes));
  }
  if (role == Role::OUTPUT)
    if (auto why = output_alias(t)) f.unspecified("T.OUTPUT_OVERLAP", *why);
}

struct RankRange {
  uint32_t lo, hi;
  std::string text;
};
// The DimensionCount ranges the DIMCOUNT rules state: 1..8 from 3_0; before that 4 or 5 (SLICE,
// SLICE1) or exactly 4 (SCATTER_ND, GATHER_ELEMENTS).
RankRange dimcount_range(FeatureLevel level, bool four_or_five) {
  if (level >= FeatureLevel::L3_0) return {1, 8, "1..8"};
  return four_or_five ? RankRange{4, 5, "4 or 5"} : RankRange{4, 4, "4"};
}

void check_range(Findings& f, std::string_view rule, std::string_view what, uint32_t n, const RankRange& r,
                 FeatureLevel level) {
  if (n < r.lo || n > r.hi)
    f.invalid(rule, std::string(what) + " is " + std::to_string(n) + "; feature level " +
                        std::string(name(level)) + " requires " + r.text);
}

void check_same_rank(Findings& f, std::string_view rule, Role role, const TensorDesc& t,
                     std::string_view what, uint32_t n) {
  if (t.rank() != n)
    f.invalid(rule, tensor_path(role) + ".sizes has " + std::to_string(t.rank()) + " dimensions but " +
                        std::string(what) + " is " + std::to_string(n));
}

void check_dtype_match(Findings& f, std::string_view rule, Role role, const TensorDesc& t,
                       const TensorDesc& input) {
  if (t.type != input.type)
    f.invalid(rule, tensor_path(role) + ".type is " + std::string(name(t.type)) +
                        " but tensors.input.type is " + std::string(name(input.type)));
}

void check_sizes_equal(Findings& f, std::string_view rule, Role role, const TensorDesc& t, Role other_role,
                       const TensorDesc& other) {
  if (t.sizes != other.sizes)
    f.invalid(rule, tensor_path(role) + ".sizes is " + list(t.sizes) + " but " + tensor_path(other_role) +
                        ".sizes is " + list(other.sizes));
}

// DimensionCount is the length of the per-dimension params arrays; arrays of differing lengths,
// tensors of another rank, and counts outside the level's range all break the op's DIMCOUNT rule.
struct ParamArray {
  std::string_view path;
  size_t size;
};
uint32_t check_param_dimcount(Findings& f, std::string_view rule, std::initializer_list<ParamArray> arrays,
                              const TensorDesc& input, const TensorDesc& output, const RankRange& range,
                              FeatureLevel level) {
  const ParamArray& first = *arrays.begin();
  for (const ParamArray& a : arrays)
    if (a.size != first.size)
      f.invalid(rule, std::string(a.path) + " has " + std::to_string(a.size) + " entries but " +
                          std::string(first.path) + " has " + std::to_string(first.size));
  const auto n = static_cast<uint32_t>(std::min<size_t>(first.size, std::numeric_limits<uint32_t>::max()));
  const std::string what = "DimensionCount (length of " + std::string(first.path) + ")";
  check_range(f, rule, what, n, range, level);
  check_same_rank(f, rule, Role::INPUT, input, what, n);
  check_same_rank(f, rule, Role::OUTPUT, output, what, n);
  return n;
}

std::string at(std::string_view array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

void check_op(Findings& f, const SliceDesc& d, FeatureLevel level) {
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
                    std::to_string(d.sizes[i] - 1) + " = " + to_string(last) + ", not below " +
                    at("tensors.input.sizes", i) + " = " + std::to_string(d.input.sizes[i]));
  }
  for (size_t i = 0; i < d.strides.size(); ++i)
    if (d.strides[i] == 0) f.unspecified("SLICE.STRIDE_ZERO", at("params.strides", i) + " is 0");
}

void check_op(Findings& f, const Slice1Desc& d, FeatureLevel level) {
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

// The expected SCATTER_ND Updates.Sizes (SPEC.md, and the team's reading of SCATTERND.TUPLE_SIZE:
// with m = max(InputDimensionCount, k), the block is input dims [rank-m+k, rank)). nullopt when
// the meaningful shapes are not defined.
std::optional<Sizes> expected_updates_sizes(const ScatterNdDesc& d) {
  const uint32_t rank = d.input.rank(), irank = d.indices.rank();
  const uint32_t idc = d.input_dimension_count, xdc = d.indices_dimension_count;
  if (irank == 0 || idc < 1 || idc > rank || xdc < 1 || xdc > irank) return std::nullopt;
  const uint32_t k = d.indices.sizes.back();
  if (k < 1 || k > rank) return std::nullopt;
  const uint32_t m = std::max(idc, k);
  Sizes e(d.indices.sizes.begin() + (irank - xdc), d.indices.sizes.end() - 1);
  e.insert(e.end(), d.input.sizes.begin() + (rank - m + k), d.input.sizes.end());
  if (e.size() < d.updates.rank()) e.insert(e.begin(), d.updates.rank() - e.size(), 1u);
  return e;
}

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

void check_op(Findings& f, const ScatterNdDesc& d, FeatureLevel level) {
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
  if (auto e = expected_updates_sizes(d); e && *e != d.updates.sizes)
    f.invalid("SCATTERND.UPDATES_SHAPE",
              "tensors.updates.sizes is " + list(d.updates.sizes) + " but the expected shape is " + list(*e));
  check_sizes_equal(f, "SCATTERND.OUTPUT_SHAPE", Role::OUTPUT, d.output, Role::INPUT, d.input);
}

void check_op(Findings& f, const ReduceDesc& d, FeatureLevel) {
  const bool valid_function = is_valid(d.function);
  if (!valid_function)
    f.invalid("OP.FUNCTION", "params.function is " + std::to_string(static_cast<uint32_t>(d.function)) +
                                 "; it must be one of the 12 DML_REDUCE_FUNCTION values (0..11)");
  const uint32_t rank = d.input.rank();
  if (d.output.rank() != rank)
    f.invalid("REDUCE.DIMCOUNT", "tensors.output.sizes has " + std::to_string(d.output.rank()) +
                                     " dimensions but tensors.input.sizes has " + std::to_string(rank));
  if (d.axes.empty()) f.unspecified("REDUCE.AXES_EMPTY", "params.axes is empty (AxisCount 0)");
  std::vector<bool> reduced(rank, false);
  for (size_t i = 0; i < d.axes.size(); ++i) {
    const uint32_t a = d.axes[i];
    if (a >= rank) {
      f.invalid("REDUCE.AXIS_RANGE", at("params.axes", i) + " is " + std::to_string(a) +
                                         "; it must be in [0, " + std::to_string(rank) +
                                         "-1] (tensors.input DimensionCount " + std::to_string(rank) + ")");
      continue;
    }
    const auto first = std::find(d.axes.begin(), d.axes.begin() + i, a);
    if (first != d.axes.begin() + i)
      f.unspecified("REDUCE.AXES_DUPLICATE", at("params.axes", i) + " repeats axis " + std::to_string(a) +
                                                 " (" + at("params.axes", first - d.axes.begin()) + ")");
    reduced[a] = true;
  }
  if (d.output.rank() == rank)
    for (size_t i = 0; i < rank; ++i) {
      const uint32_t want = reduced[i] ? 1 : d.input.sizes[i];
      if (d.output.sizes[i] != want)
        f.invalid("REDUCE.OUTPUT_SIZES",
                  at("tensors.output.sizes", i) + " is " + std::to_string(d.output.sizes[i]) + "; expected " +
                      std::to_string(want) +
                      (reduced[i] ? " (reduced axis)" : " (tensors.input.sizes[" + std::to_string(i) + "])"));
    }
  if (!valid_function) return;  // which type rule applies depends on the function
  if (is_arg_function(d.function)) {
    if (!is_integer(d.output.type))
      f.invalid("REDUCE.DTYPE_MATCH", "tensors.output.type is " + std::string(name(d.output.type)) + "; " +
                                          name(d.function) + " outputs an integer type");
  } else {
    check_dtype_match(f, "REDUCE.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  }
}

void check_op(Findings& f, const GatherElementsDesc& d, FeatureLevel level) {
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

// "REDUCE ARGMAX input at feature level 2_1" (used in T.RANK / T.DTYPE messages).
std::string where(const OperatorDesc& desc, Role role, FeatureLevel level) {
  std::string s(name(op_kind(desc)));
  if (auto fn = reduce_function(desc)) s += " " + name(*fn);
  return s + " " + std::string(name(role)) + " at feature level " + std::string(name(level));
}

}  // namespace

Validation validate(const OperatorDesc& desc, FeatureLevel level) {
  Findings f;
  const OpKind op = op_kind(desc);
  const bool exists = level >= introduced_at(op);
  if (!exists)
    f.invalid("OP.FEATURE_LEVEL", std::string(name(op)) + " exists from feature level " +
                                      std::string(name(introduced_at(op))) + "; feature_level is " +
                                      std::string(name(level)));
  for (Role role : roles(op)) {
    const TensorDesc* t = tensor(desc, role);
    if (!t) continue;
    // Without the op at this level (or with an invalid function) there is no table to check.
    const auto s = exists ? support(op, reduce_function(desc), role, level) : std::nullopt;
    check_tensor(f, role, *t, s, where(desc, role, level));
  }
  std::visit([&](const auto& d) { check_op(f, d, level); }, desc);
  return std::move(f.v);
}

// ---- Data-dependent rules (class U) ----

namespace {

constexpr size_t kMaxReportedPerRule = 8;

// Collects findings per rule, keeping the first few and summarising the rest.
class DataFindings {
 public:
  void add(std::string_view rule, std::string message) {
    if (++counts_[std::string(rule)] <= kMaxReportedPerRule)
      out_.push_back({std::string(rule), std::move(message)});
  }
  std::vector<Violation> take() {
    for (const auto& [rule, n] : counts_)
      if (n > kMaxReportedPerRule)
        out_.push_back(
            {rule, "... and " + std::to_string(n - kMaxReportedPerRule) + " more " + rule + " findings"});
    return std::move(out_);
  }

 private:
  std::map<std::string, size_t> counts_;
  std::vector<Violation> out_;
};

// The logical data of t when it has exactly the expected length; nullopt otherwise (data of the
// wrong length yields no finding: it is the case loader's business, not a rule's).
bool has_logical_data(const TensorDesc& t, const Bytes& data) {
  const auto n = element_count(t.sizes);
  return n && *n <= std::numeric_limits<uint64_t>::max() / 8 && *n * element_size(t.type) == data.size();
}

// Element i of an integer tensor's logical data, widened; nullopt for float types.
std::optional<__int128> integer_at(DataType type, const Bytes& data, uint64_t i) {
  return dispatch(type, [&](auto tag) -> std::optional<__int128> {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      return std::nullopt;
    } else {
      return static_cast<__int128>(load<T>(data.data() + i * sizeof(T)));
    }
  });
}

std::string to_string(__int128 v) {
  std::string s = to_string(static_cast<u128>(v < 0 ? -v : v));
  if (v < 0) s.insert(s.begin(), '-');
  return s;
}

// An index value against a dimension of size d (SCATTERND.INDEX_RANGE, GATHERELEMENTS.INDEX_RANGE).
// Returns the normalised index, or nullopt when the value is out of range.
std::optional<uint64_t> normalise_index(__int128 v, uint32_t d, bool negative_allowed) {
  if (v >= 0 && v < d) return static_cast<uint64_t>(v);
  if (negative_allowed && v < 0 && v >= -static_cast<__int128>(d)) return static_cast<uint64_t>(d + v);
  return std::nullopt;
}

std::string allowed_range(uint32_t d, bool negative_allowed) {
  return negative_allowed ? "[-" + std::to_string(d) + ", " + std::to_string(d) + ")"
                          : "[0, " + std::to_string(d) + ")";
}

bool negative_indices_allowed(DataType index_type, FeatureLevel level) {
  return level >= FeatureLevel::L3_0 && is_signed_integer(index_type);
}

void check_data_op(DataFindings&, const SliceDesc&, FeatureLevel, const InputData&) {}
void check_data_op(DataFindings&, const Slice1Desc&, FeatureLevel, const InputData&) {}

void check_data_op(DataFindings& f, const ScatterNdDesc& d, FeatureLevel level, const InputData& data) {
  if (!has_logical_data(d.indices, data.indices) || d.indices.rank() == 0) return;
  const uint32_t rank = d.input.rank();
  const uint32_t k = d.indices.sizes.back();
  if (k < 1 || k > rank) return;
  const uint32_t m = std::max(d.input_dimension_count, k);
  if (m > rank) return;
  const uint32_t first_dim = rank - m;  // the tuple indexes input dims [first_dim, first_dim + k)
  const bool negative = negative_indices_allowed(d.indices.type, level);
  const uint64_t tuples = data.indices.size() / element_size(d.indices.type) / k;
  std::map<std::vector<uint64_t>, uint64_t> seen;  // normalised tuple -> first tuple number
  for (uint64_t t = 0; t < tuples; ++t) {
    std::vector<uint64_t> tuple;
    for (uint32_t j = 0; j < k; ++j) {
      const uint64_t i = t * k + j;
      const auto v = integer_at(d.indices.type, data.indices, i);
      if (!v) return;
      const uint32_t dsize = d.input.sizes[first_dim + j];
      const auto idx = normalise_index(*v, dsize, negative);
      if (!idx) {
        f.add("SCATTERND.INDEX_RANGE", "tensors.indices.data[" + std::to_string(i) + "] is " + to_string(*v) +
                                           "; tensors.input.sizes[" + std::to_string(first_dim + j) +
                                           "] is " + std::to_string(dsize) + ", so it must be in " +
                                           allowed_range(dsize, negative));
        break;
      }
      tuple.push_back(*idx);
    }
    if (tuple.size() != k) continue;
    const auto [it, inserted] = seen.emplace(tuple, t);
    if (!inserted)
      f.add("SCATTERND.DUPLICATE", "index tuples " + std::to_string(it->second) + " and " +
                                       std::to_string(t) +
                                       " of tensors.indices.data both address input block " + list(tuple));
  }
}

void check_data_op(DataFindings& f, const GatherElementsDesc& d, FeatureLevel level, const InputData& data) {
  if (!has_logical_data(d.indices, data.indices) || d.axis >= d.input.rank()) return;
  const uint32_t dsize = d.input.sizes[d.axis];
  const bool negative = negative_indices_allowed(d.indices.type, level);
  const uint64_t n = data.indices.size() / element_size(d.indices.type);
  for (uint64_t i = 0; i < n; ++i) {
    const auto v = integer_at(d.indices.type, data.indices, i);
    if (!v) return;
    if (!normalise_index(*v, dsize, negative))
      f.add("GATHERELEMENTS.INDEX_RANGE",
            "tensors.indices.data[" + std::to_string(i) + "] is " + to_string(*v) + "; tensors.input.sizes[" +
                std::to_string(d.axis) + "] (params.axis) is " + std::to_string(dsize) +
                ", so it must be in " + allowed_range(dsize, negative));
  }
}

// REDUCE.INT_OVERFLOW: accumulates each group in row-major order in the element type itself and
// reports the first step whose exact value leaves the type's range. Returns the step (1-based)
// that overflowed, or 0.
template <class T>
size_t first_integer_overflow(ReduceFunction fn, const Bytes& data, const std::vector<uint64_t>& g) {
  T acc = 0;
  for (size_t j = 0; j < g.size(); ++j) {
    T x = load<T>(data.data() + g[j] * sizeof(T));
    if (fn == ReduceFunction::L1 && x < 0) {
      if (x == std::numeric_limits<T>::min()) return j + 1;  // |x| is not representable
      x = static_cast<T>(-x);
    }
    if (fn == ReduceFunction::SUM_SQUARE && __builtin_mul_overflow(x, x, &x)) return j + 1;
    if (fn == ReduceFunction::MULTIPLY && j == 0) {
      acc = x;
      continue;
    }
    const bool overflow = fn == ReduceFunction::MULTIPLY ? __builtin_mul_overflow(acc, x, &acc)
                                                         : __builtin_add_overflow(acc, x, &acc);
    if (overflow) return j + 1;
  }
  return 0;
}

// REDUCE.NONFINITE for float inputs: a NaN/Inf input, or a partial result (row-major order, in
// double) whose magnitude exceeds the output type's largest finite value. The partial results are
// those of the function's running accumulation: the sum (SUM, AVERAGE, LOG_SUM), the sum of |x|
// (L1), of x^2 (L2, SUM_SQUARE), of exp(x) (LOG_SUM_EXP), and the product (MULTIPLY).
std::optional<std::string> nonfinite_finding(ReduceFunction fn, DataType type, double max_out,
                                             const Bytes& data, const std::vector<uint64_t>& g) {
  const size_t es = element_size(type);
  double acc = fn == ReduceFunction::MULTIPLY ? 1.0 : 0.0;
  for (size_t j = 0; j < g.size(); ++j) {
    const double x = to_double(type, data.data() + g[j] * es);
    if (!std::isfinite(x))
      return "tensors.input.data[" + std::to_string(g[j]) + "] is " +
             (std::isnan(x) ? "nan"
              : x > 0       ? "inf"
                            : "-inf");
    switch (fn) {
      case ReduceFunction::SUM:
      case ReduceFunction::AVERAGE:
      case ReduceFunction::LOG_SUM: acc += x; break;
      case ReduceFunction::L1: acc += std::fabs(x); break;
      case ReduceFunction::L2:
      case ReduceFunction::SUM_SQUARE: acc += x * x; break;
      case ReduceFunction::LOG_SUM_EXP: acc += std::exp(x); break;
      case ReduceFunction::MULTIPLY: acc *= x; break;
      default: continue;  // MIN, MAX, ARGMIN, ARGMAX have no partial arithmetic
    }
    if (!(std::fabs(acc) <= max_out)) {
      std::ostringstream o;
      o << "partial " << name(fn) << " after " << (j + 1) << " of " << g.size() << " inputs is " << acc
        << ", beyond the output type's largest finite value " << max_out;
      return o.str();
    }
  }
  return std::nullopt;
}

double largest_finite(DataType t) {
  switch (t) {
    case DataType::FLOAT16: return 65504.0;
    case DataType::FLOAT32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

void check_data_op(DataFindings& f, const ReduceDesc& d, FeatureLevel, const InputData& data) {
  if (!is_valid(d.function) || !has_logical_data(d.input, data.input)) return;
  for (uint32_t a : d.axes)
    if (a >= d.input.rank()) return;
  const auto groups = reduction_groups(d.input.sizes, d.axes);
  const bool integer_arithmetic =
      d.function == ReduceFunction::SUM || d.function == ReduceFunction::MULTIPLY ||
      d.function == ReduceFunction::L1 || d.function == ReduceFunction::SUM_SQUARE;
  for (size_t o = 0; o < groups.size(); ++o) {
    const auto& g = groups[o];
    if (is_float(d.input.type)) {
      if (auto why =
              nonfinite_finding(d.function, d.input.type, largest_finite(d.output.type), data.input, g))
        f.add("REDUCE.NONFINITE", "output element " + std::to_string(o) + ": " + *why);
    } else if (integer_arithmetic) {
      const size_t step = dispatch(d.input.type, [&](auto tag) -> size_t {
        using T = typename decltype(tag)::type;
        if constexpr (is_float_v<T>) {
          return 0;
        } else {
          return first_integer_overflow<T>(d.function, data.input, g);
        }
      });
      if (step)
        f.add("REDUCE.INT_OVERFLOW", "output element " + std::to_string(o) + ": the " + name(d.function) +
                                         " partial result after " + std::to_string(step) + " of " +
                                         std::to_string(g.size()) + " inputs (at tensors.input.data[" +
                                         std::to_string(g[step - 1]) + "]) leaves the range of " +
                                         std::string(name(d.input.type)));
    }
  }
}

}  // namespace

std::vector<Violation> check_data(const OperatorDesc& desc, FeatureLevel level, const InputData& data) {
  // The data rules presuppose a well-formed descriptor (shapes, axes, index types).
  if (!validate(desc, level).invalid.empty()) return {};
  DataFindings f;
  std::visit([&](const auto& d) { check_data_op(f, d, level, data); }, desc);
  return f.take();
}

}  // namespace dmlcert
