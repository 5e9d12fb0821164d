// Index data of SCATTER_ND and GATHER_ELEMENTS: reading one element of INT64, INT32, UINT64 or
// UINT32 and resolving it against a dimension (SCATTERND.INDEX_RANGE, GATHERELEMENTS.INDEX_RANGE).
#include <string>

#include "reference/internal.h"

namespace dmlcert::reference::detail {
namespace {

// The exact value of an index element, or nullopt for a type that cannot hold indices (the
// validator rejects those before we get here; T.DTYPE).
struct IndexValue {
  bool negative = false;
  uint64_t magnitude = 0;
};

std::optional<IndexValue> read_index(DataType t, const std::byte* p) {
  switch (t) {
    case DataType::INT64: {
      const int64_t v = load<int64_t>(p);
      // -(v+1)+1 avoids negating INT64_MIN.
      return v < 0 ? IndexValue{true, static_cast<uint64_t>(-(v + 1)) + 1}
                   : IndexValue{false, static_cast<uint64_t>(v)};
    }
    case DataType::INT32: {
      const int64_t v = load<int32_t>(p);
      return v < 0 ? IndexValue{true, static_cast<uint64_t>(-v)}
                   : IndexValue{false, static_cast<uint64_t>(v)};
    }
    case DataType::UINT64: return IndexValue{false, load<uint64_t>(p)};
    case DataType::UINT32: return IndexValue{false, load<uint32_t>(p)};
    default: return std::nullopt;
  }
}

}  // namespace

std::string index_text(DataType t, const std::byte* p) {
  const auto v = read_index(t, p);
  if (!v) return "?";
  return (v->negative ? "-" : "") + std::to_string(v->magnitude);
}

std::optional<uint32_t> resolve_index(DataType t, const std::byte* p, uint32_t d, FeatureLevel level) {
  const auto v = read_index(t, p);
  if (!v) return std::nullopt;
  if (!v->negative) {
    if (v->magnitude < d) return static_cast<uint32_t>(v->magnitude);
    return std::nullopt;
  }
  // Negative indices count from the end of the dimension, from 3_0 and for signed types only
  // (the seeds' IndicesTensor member text); a negative value can only come from a signed type.
  if (!at_least(level, FeatureLevel::L3_0)) return std::nullopt;
  if (v->magnitude > d) return std::nullopt;
  return static_cast<uint32_t>(d - v->magnitude);
}

}  // namespace dmlcert::reference::detail
