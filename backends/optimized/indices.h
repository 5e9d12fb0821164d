// Index data of SCATTER_ND and GATHER_ELEMENTS (INT64, INT32, UINT64, UINT32): range checks and
// negative-index normalization (SCATTERND.INDEX_RANGE, GATHERELEMENTS.INDEX_RANGE).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "dmlcert/backend.h"
#include "dmlcert/dtype.h"
#include "dmlcert/feature_level.h"

namespace dmlcert::optimized {

// Calls f(type_tag<I>{}) for the four index types; other types are never valid index types (the
// validator rejects them), and map to uint32_t so that no other instantiation is needed.
template <class F>
decltype(auto) dispatch_index(DataType t, F&& f) {
  switch (t) {
    case DataType::INT64: return f(type_tag<int64_t>{});
    case DataType::INT32: return f(type_tag<int32_t>{});
    case DataType::UINT64: return f(type_tag<uint64_t>{});
    default: return f(type_tag<uint32_t>{});
  }
}

// Negative indices mean d + value from feature level 3_0, for signed index types only.
inline bool negative_indices_allowed(DataType index_type, FeatureLevel level) {
  return at_least(level, FeatureLevel::L3_0) && is_signed_integer(index_type);
}

// Whether v is a legal index into a dimension of size d.
template <class I>
inline bool index_in_range(I v, uint64_t d, bool allow_negative) {
  if constexpr (std::is_signed_v<I>) {
    if (v < 0) return allow_negative && static_cast<uint64_t>(-(static_cast<int64_t>(v) + 1)) < d;
  }
  return static_cast<uint64_t>(v) < d;
}

// The index in [0, d) for a value that passed index_in_range.
template <class I>
inline int64_t normalize_index(I v, uint64_t d) {
  if constexpr (std::is_signed_v<I>) {
    if (v < 0) return static_cast<int64_t>(v) + static_cast<int64_t>(d);
  }
  return static_cast<int64_t>(v);
}

// The rejection of a case with out-of-range index data. The message comes from the shared
// check_data() when it names the rule, so both backends describe the same element the same way;
// `fallback` is used otherwise.
ExecResult index_range_rejection(const OperatorDesc& desc, FeatureLevel level, const Bindings& b,
                                 const std::string& rule, const std::string& fallback);

}  // namespace dmlcert::optimized
