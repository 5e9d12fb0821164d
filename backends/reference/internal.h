// What the reference backend's operator files share: element addressing over logical
// coordinates, and their one entry point each. Not a public header.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/behaviour.h"
#include "dmlcert/tensor.h"

namespace dmlcert::reference {

// One entry point per operator, in the operator's own file. The descriptor is not invalid and
// every binding holds at least its tensor's minimum implied size. `reading` picks how to resolve
// what a class U case leaves open (docs/rules.md); an operator returns Unsupported for a reading
// that does not apply to the case.
#define DMLCERT_REFERENCE_OPERATOR(KIND, stem, Desc) \
  ExecResult compute(const Desc& d, FeatureLevel level, const Bindings& b, Reading reading);
DMLCERT_FOR_EACH_OPERATOR(DMLCERT_REFERENCE_OPERATOR)
#undef DMLCERT_REFERENCE_OPERATOR

namespace detail {

// A tensor bound to its buffer. at(c) is the address of the logical element at coordinate c,
// which lives at element offset dot(c, Strides) (docs/semantics.md, "Tensor descriptors").
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
  // at(unravel(flat, sizes())), without building the coordinate: REDUCE walks every element of a
  // group by its row-major index, and a huge case has millions.
  Byte* at_row_major(uint64_t flat) const {
    uint64_t offset = 0;
    for (std::size_t i = desc_.sizes.size(); i-- > 0;) {
      if (desc_.sizes[i] == 0) continue;
      offset += flat % desc_.sizes[i] * strides_[i];
      flat /= desc_.sizes[i];
    }
    return data_ + offset * element_bytes_;
  }

 private:
  const TensorDesc& desc_;
  std::vector<uint64_t> strides_;
  std::size_t element_bytes_;
  Byte* data_;
};
using InputTensor = BoundTensor<const std::byte>;
using OutputTensor = BoundTensor<std::byte>;

// Data movement copies elements as raw bytes, so NaN payloads and the sign of zero survive
// (docs/semantics.md, "Numbers": data movement is bit-exact).
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
// The answer to a reading the operator has no notion of, or none for this case.
inline ExecResult not_applicable(Reading reading) {
  ExecResult r;
  r.status = Status::Unsupported;
  r.message = "the reading " + std::string(name(reading.behaviour)) + " does not apply to this case";
  return r;
}

// SCATTER_ND as a list of element writes, in the order the pseudocode performs them (index tuples
// in row-major order, each tuple's block in row-major order), or the index that is out of range.
struct ScatterWrite {
  Coord update;  // coordinate in Updates
  Coord output;  // coordinate in Output (and Input)
};
// `index_reading` IndexClamped or IndexWrapped places out-of-range indices instead (the behaviour
// profile); `placed` then says whether any was.
std::variant<std::vector<ScatterWrite>, Violation> plan_scatter_nd(
    const ScatterNdDesc& d, const ScatterGeometry& g, FeatureLevel level, const InputTensor& indices,
    Behaviour index_reading = Behaviour::Specified, bool* placed = nullptr);

}  // namespace detail
}  // namespace dmlcert::reference
