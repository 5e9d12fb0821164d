// Checks several operators' rules share (docs/rules.md): DimensionCount ranges, equal ranks,
// equal types and shapes, and the message pieces that name fields. Private to the operator
// declaration files.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "dmlcert/indices.h"
#include "dmlcert/validate.h"

namespace dmlcert::checks {

using u128 = unsigned __int128;

// "params.offsets[2]"
inline std::string at(std::string_view array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}
// "tensors.indices"
inline std::string tensor_path(Role r) {
  return "tensors." + std::string(name(r));
}
// "[1, 2, 3]"
template <class V>
std::string list(const V& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(+v[i]);
  return s + "]";
}
inline std::string to_string(u128 v) {
  return dmlcert::to_string(static_cast<__int128>(v));
}

struct RankRange {
  uint32_t lo, hi;
  std::string text;
};
// The DimensionCount ranges the DIMCOUNT rules state: 1..8 from 3_0; before that 4 or 5 (SLICE,
// SLICE1) or exactly 4 (SCATTER_ND, GATHER_ELEMENTS).
inline RankRange dimcount_range(FeatureLevel level, bool four_or_five) {
  if (level >= FeatureLevel::L3_0) return {1, 8, "1..8"};
  return four_or_five ? RankRange{4, 5, "4 or 5"} : RankRange{4, 4, "4"};
}

inline void check_range(Findings& f, std::string_view rule, std::string_view what, uint32_t n,
                        const RankRange& r, FeatureLevel level) {
  if (n < r.lo || n > r.hi)
    f.invalid(rule, std::string(what) + " is " + std::to_string(n) + "; feature level " +
                        std::string(name(level)) + " requires " + r.text);
}

inline void check_same_rank(Findings& f, std::string_view rule, Role role, const TensorDesc& t,
                            std::string_view what, uint32_t n) {
  if (t.rank() != n)
    f.invalid(rule, tensor_path(role) + ".sizes has " + std::to_string(t.rank()) + " dimensions but " +
                        std::string(what) + " is " + std::to_string(n));
}

inline void check_dtype_match(Findings& f, std::string_view rule, Role role, const TensorDesc& t,
                              const TensorDesc& input) {
  if (t.type != input.type)
    f.invalid(rule, tensor_path(role) + ".type is " + std::string(name(t.type)) +
                        " but tensors.input.type is " + std::string(name(input.type)));
}

inline void check_sizes_equal(Findings& f, std::string_view rule, Role role, const TensorDesc& t,
                              Role other_role, const TensorDesc& other) {
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
inline uint32_t check_param_dimcount(Findings& f, std::string_view rule,
                                     std::initializer_list<ParamArray> arrays, const TensorDesc& input,
                                     const TensorDesc& output, const RankRange& range, FeatureLevel level) {
  const ParamArray& first = *arrays.begin();
  for (const ParamArray& a : arrays)
    if (a.size != first.size)
      f.invalid(rule, std::string(a.path) + " has " + std::to_string(a.size) + " entries but " +
                          std::string(first.path) + " has " + std::to_string(first.size));
  const auto n = static_cast<uint32_t>(std::min<size_t>(first.size, UINT32_MAX));
  const std::string what = "DimensionCount (length of " + std::string(first.path) + ")";
  check_range(f, rule, what, n, range, level);
  check_same_rank(f, rule, Role::INPUT, input, what, n);
  check_same_rank(f, rule, Role::OUTPUT, output, what, n);
  return n;
}

// The logical data of t when it has exactly the expected length (data of another length yields no
// finding: the case loader reports it).
inline bool has_logical_data(const TensorDesc& t, const Bytes& data) {
  const auto n = element_count(t.sizes);
  return n && *n <= UINT64_MAX / 8 && *n * element_size(t.type) == data.size();
}

}  // namespace dmlcert::checks
