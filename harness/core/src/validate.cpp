// The validator's generic part: the rules every tensor and operator shares (T.*, OP.*), then the
// operator's own checks from its declaration file. It runs on arbitrary input (case files,
// fuzzers, plugins' descriptors), so every array access is guarded against malformed descriptors
// and every size computation is exact (128-bit): a bad descriptor yields violations, never
// undefined behaviour.
#include "dmlcert/validate.h"

#include <algorithm>
#include <atomic>

#include "dmlcert/strided_dims.h"
#include "dmlcert/support.h"
#include "ops/checks.h"

namespace dmlcert {

using checks::list;
using checks::tensor_path;
using checks::u128;

bool Validation::has(std::string_view rule) const {
  auto match = [rule](const Violation& v) { return v.rule == rule; };
  return std::any_of(invalid.begin(), invalid.end(), match) ||
         std::any_of(unspecified.begin(), unspecified.end(), match);
}

bool Classification::has(std::string_view rule) const {
  return std::any_of(findings.begin(), findings.end(), [rule](const Violation& v) { return v.rule == rule; });
}

std::string Classification::rule_list() const {
  std::string s;
  for (const Violation& v : findings)
    if (s.find(v.rule) == std::string::npos) s += (s.empty() ? "" : ", ") + v.rule;
  return s;
}

namespace {

constexpr uint64_t kElementLimit = 0xFFFFFFFFull;  // T.ELEMENT_LIMIT: 2^32-1

bool strides_match_rank(const TensorDesc& t) {
  return !t.strides || t.strides->size() == t.sizes.size();
}
bool has_zero_size(const TensorDesc& t) {
  return std::find(t.sizes.begin(), t.sizes.end(), 0u) != t.sizes.end();
}

// dot(Sizes-1, Strides) + 1, exactly: each term is below 2^96 and there are fewer than 2^32
// terms, so the 128-bit sum cannot overflow. nullopt when the span is not defined (a 0 size, or
// strides with the wrong count).
std::optional<u128> exact_span(const TensorDesc& t) {
  if (has_zero_size(t) || !strides_match_rank(t)) return std::nullopt;
  const auto strides = effective_strides(t);
  u128 span = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) span += static_cast<u128>(t.sizes[i] - 1) * strides[i];
  return span;
}

// The coordinates (row-major over `dims`, the last fastest) of enumeration step `flat`, placed in
// a coordinate of the whole tensor.
Coord coord_of(const std::vector<StridedDim>& dims, size_t rank, uint64_t flat) {
  Coord c(rank, 0);
  for (size_t k = dims.size(); k-- > 0;) {
    c[dims[k].index] = static_cast<uint32_t>(flat % dims[k].size);
    flat /= dims[k].size;
  }
  return c;
}

// Calls visit(offset, flat) for every coordinate of `dims` in row-major order (an odometer: one
// addition per step, no division), until visit returns false.
template <class Visit>
void for_each_offset(const std::vector<StridedDim>& dims, Visit visit) {
  std::vector<uint64_t> at(dims.size(), 0);
  uint64_t off = 0;
  for (uint64_t flat = 0;; ++flat) {
    if (!visit(off, flat)) return;
    size_t j = dims.size();
    while (j-- > 0) {
      if (++at[j] < dims[j].size) {
        off += dims[j].stride;
        break;
      }
      off -= (dims[j].size - 1) * dims[j].stride;
      at[j] = 0;
    }
    if (j == SIZE_MAX) return;
  }
}

// The first two coordinates of `dims` (in enumeration order) that share an offset, or nullopt.
// Every call of every backend that validates runs this on its output (the reference does), so it
// must stay cheap up to its 2^20 coordinates, with a repeat found in the first few steps usually:
// a bitmap over the offsets' range with a stop at the first repeat when that range is at most 64
// times the count (its bytes at most 8 per coordinate), else the offsets sorted.
std::optional<std::pair<uint64_t, uint64_t>> first_shared_offset(const std::vector<StridedDim>& dims,
                                                                 uint64_t count) {
  uint64_t range = 1;
  for (const StridedDim& d : dims) range += (d.size - 1) * d.stride;  // below 8 * 2^20 * 2^32
  std::optional<uint64_t> second;  // the flat index whose offset was seen before
  uint64_t shared = 0;
  if (range / 64 <= count) {
    std::vector<uint64_t> seen((range + 63) / 64, 0);
    for_each_offset(dims, [&](uint64_t off, uint64_t flat) {
      uint64_t& word = seen[off / 64];
      const uint64_t bit = uint64_t{1} << (off % 64);
      if (word & bit) {
        second = flat, shared = off;
        return false;
      }
      word |= bit;
      return true;
    });
  } else {
    std::vector<uint64_t> offsets;
    offsets.reserve(static_cast<size_t>(count));
    for_each_offset(dims, [&](uint64_t off, uint64_t) {
      offsets.push_back(off);
      return true;
    });
    std::sort(offsets.begin(), offsets.end());
    const auto repeat = std::adjacent_find(offsets.begin(), offsets.end());
    if (repeat == offsets.end()) return std::nullopt;
    shared = *repeat;
    // The second coordinate at that offset, in enumeration order.
    uint64_t seen_at = 0;
    for_each_offset(dims, [&](uint64_t off, uint64_t flat) {
      if (off == shared && seen_at++ == 1) second = flat;
      return !second;
    });
  }
  if (!second) return std::nullopt;
  uint64_t first = 0;
  for_each_offset(dims, [&](uint64_t off, uint64_t flat) {
    if (off == shared) first = flat;
    return off != shared;
  });
  return std::pair{first, *second};
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
//     enumerating its offsets when it has at most 2^20 coordinates (first_shared_offset). Beyond
//     that the check stays conservative and reports "may alias" (class U) without a witness.
std::optional<std::string> output_alias(const TensorDesc& t) {
  if (!t.strides || !strides_match_rank(t) || has_zero_size(t)) return std::nullopt;
  const auto& strides = *t.strides;
  for (size_t i = 0; i < t.sizes.size(); ++i)
    if (t.sizes[i] > 1 && strides[i] == 0)
      return "tensors.output.strides[" + std::to_string(i) + "] is 0 while tensors.output.sizes[" +
             std::to_string(i) + "] is " + std::to_string(t.sizes[i]);
  const std::vector<StridedDim> dims = interleaved_dims(t.sizes, effective_strides(t));
  if (dims.empty()) return std::nullopt;
  u128 count = 1;
  for (const StridedDim& d : dims) {
    count *= d.size;
    if (count > (u128{1} << 20)) break;
  }
  if (count > (u128{1} << 20)) {
    std::string names;
    for (const StridedDim& d : dims) names += (names.empty() ? "" : ", ") + std::to_string(d.index);
    return "tensors.output.strides " + list(strides) + " interleave dimensions " + names +
           "; they may map two coordinates to one element";
  }
  const auto pair = first_shared_offset(dims, static_cast<uint64_t>(count));
  if (!pair) return std::nullopt;
  const Coord a = coord_of(dims, t.sizes.size(), pair->first),
              b = coord_of(dims, t.sizes.size(), pair->second);
  return "tensors.output.strides " + list(strides) + " map coordinates " + list(a) + " and " + list(b) +
         " to element offset " + std::to_string(element_offset(a, effective_strides(t)));
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
    if (t.sizes[i] == 0)
      f.invalid_lazy("T.SIZE_ZERO", [&] { return p + ".sizes[" + std::to_string(i) + "] is 0"; });
  if (!strides_match_rank(t))
    f.invalid("T.STRIDES_COUNT", p + ".strides has " + std::to_string(t.strides->size()) + " entries but " +
                                     p + ".sizes has " + std::to_string(t.sizes.size()));
  const auto span = exact_span(t);
  if (span && *span > kElementLimit)
    f.invalid("T.ELEMENT_LIMIT", p + ": dot(sizes-1, strides)+1 is " + checks::to_string(*span) +
                                     ", above 2^32-1 = " + std::to_string(kElementLimit));
  if (t.total_bytes % 4 != 0)
    f.invalid("T.TOTAL_BYTES",
              p + ".total_bytes is " + std::to_string(t.total_bytes) + ", not a multiple of 4");
  if (span) {
    const u128 min_bytes = (*span * element_size(t.type) + 3) / 4 * 4;
    if (t.total_bytes < min_bytes)
      f.invalid("T.TOTAL_BYTES", p + ".total_bytes is " + std::to_string(t.total_bytes) +
                                     ", below the minimum implied size " + checks::to_string(min_bytes));
  }
  if (role == Role::OUTPUT)
    if (auto why = output_alias(t)) f.unspecified("T.OUTPUT_OVERLAP", *why);
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
    // Without the op at this level (or with an invalid function) there is no table to check.
    const auto s = exists ? support(op, reduce_function(desc), role, level) : std::nullopt;
    check_tensor(f, role, *tensor(desc, role), s, where(desc, role, level));
  }
  visit(desc, [&](const auto& d) { std::decay_t<decltype(d)>::validate(d, level, f); });
  return Validation{f.take_invalid(), f.take_unspecified()};
}

std::vector<Violation> check_data(const OperatorDesc& desc, FeatureLevel level, const InputData& data) {
  Findings f;
  visit(desc, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    if constexpr (requires { D::check_data(d, level, data, f); }) D::check_data(d, level, data, f);
  });
  return f.take_unspecified();
}

namespace {
std::atomic<uint64_t> g_classifications{0};
}  // namespace

uint64_t classifications() {
  return g_classifications.load(std::memory_order_relaxed);
}

Classification classify(const OperatorDesc& desc, FeatureLevel level, const InputData& data) {
  g_classifications.fetch_add(1, std::memory_order_relaxed);
  Validation v = validate(desc, level);
  if (v.case_class() == CaseClass::Invalid) return {CaseClass::Invalid, std::move(v.invalid)};
  // The data rules (index ranges, duplicates, overflow, non-finite data) presuppose a descriptor
  // that is not invalid.
  std::vector<Violation> data_findings = check_data(desc, level, data);
  v.unspecified.insert(v.unspecified.end(), data_findings.begin(), data_findings.end());
  return {v.case_class(), std::move(v.unspecified)};
}

}  // namespace dmlcert
