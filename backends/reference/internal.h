// Helpers shared by the reference backend's operator files: element addressing over logical
// coordinates, index-data resolution, and the pieces admissible.cpp reuses (the SCATTER_ND write
// plan and REDUCE with a choice of NaN policy). Not a public header.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/tensor.h"

namespace dmlcert::reference::detail {

// A tensor bound to its buffer. at(c) is the address of the logical element at coordinate c,
// which lives at element offset dot(c, Strides) (SPEC.md, "Tensor descriptors").
template <class Byte>
class BoundTensor {
 public:
  BoundTensor(const TensorDesc& desc, Byte* data)
      : desc_(desc),
        strides_(effective_strides(desc)),
        element_bytes_(element_size(desc.type)),
        data_(data) {}
  const TensorDesc& desc() const { return desc_; }
  const Sizes& sizes() const { return desc_.sizes; }
  DataType type() const { return desc_.type; }
  std::size_t element_bytes() const { return element_bytes_; }
  Byte* at(const Coord& c) const { return data_ + element_offset(c, strides_) * element_bytes_; }

 private:
  const TensorDesc& desc_;
  std::vector<uint64_t> strides_;
  std::size_t element_bytes_;
  Byte* data_;
};
using InputTensor = BoundTensor<const std::byte>;
using OutputTensor = BoundTensor<std::byte>;

// Data movement copies elements as raw bytes, so NaN payloads and the sign of zero survive
// (SPEC.md, "Numbers": data movement is bit-exact).
inline void copy_element(std::byte* dst, const std::byte* src, std::size_t n) {
  std::memcpy(dst, src, n);
}

inline ExecResult ok() {
  return ExecResult{};
}
inline ExecResult rejected(std::vector<Violation> violations, std::string message) {
  ExecResult r;
  r.status = Status::InvalidArgument;
  r.message = std::move(message);
  r.violations = std::move(violations);
  return r;
}

// Class U descriptor rules whose admissible result SPEC.md gives (the formula, N = 1, axes as a
// set), so the reference executes them. Any other class U descriptor finding (T.OUTPUT_OVERLAP)
// has no admissible result, and the reference rejects it.
inline bool has_admissible_result(const Violation& v) {
  return v.rule == "SLICE.STRIDE_ZERO" || v.rule == "REDUCE.AXES_EMPTY" || v.rule == "REDUCE.AXES_DUPLICATE";
}

// The value of one index element (INT64, INT32, UINT64 or UINT32) as text, for messages.
std::string index_text(DataType index_type, const std::byte* p);

// Resolves one index element against a dimension of size d (SCATTERND.INDEX_RANGE,
// GATHERELEMENTS.INDEX_RANGE): values in [0, d) address themselves; from feature level 3_0 a
// signed index type may also hold -d..-1, meaning d + value. Anything else is nullopt.
std::optional<uint32_t> resolve_index(DataType index_type, const std::byte* p, uint32_t d,
                                      FeatureLevel level);

// SCATTER_ND as a list of element writes, in the order the reference performs them (index tuples
// in row-major order, each tuple's block in row-major order). Empty writes plus an error when
// an index is out of range.
struct ScatterWrite {
  Coord update;  // coordinate in Updates
  Coord output;  // coordinate in Output (and Input)
};
struct ScatterPlan {
  std::vector<ScatterWrite> writes;
  std::optional<Violation> error;  // SCATTERND.INDEX_RANGE
};
ScatterPlan plan_scatter_nd(const ScatterNdDesc& d, FeatureLevel level, ConstBuffer indices);

// How MIN, MAX, ARGMIN and ARGMAX treat NaN inputs (class U, REDUCE.NONFINITE). SPEC.md admits
// both readings; execute() uses Propagate.
enum class NanPolicy {
  Propagate,  // IEEE-propagating: a NaN wins (MIN/MAX return the first NaN, ARG* its index)
  Ignore,     // NaN-ignoring: NaNs are skipped unless every element is NaN
};
ExecResult reduce_with(const ReduceDesc& d, const Bindings& b, NanPolicy nan_policy);

}  // namespace dmlcert::reference::detail
