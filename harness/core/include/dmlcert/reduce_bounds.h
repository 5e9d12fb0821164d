// Error bounds for float reductions (docs/semantics.md, "Numbers"): for every output element, how far a
// conforming backend's result may lie from the reference result, computed from the input
// elements that output element reduces.
#pragma once

#include <vector>

#include "dmlcert/compare.h"
#include "dmlcert/operators.h"
#include "dmlcert/tensor.h"

namespace dmlcert {

// Whether the reduction is compared against an error bound: float input and a function that
// rounds (everything but MIN, MAX, ARGMIN and ARGMAX, which are bit-exact).
bool has_error_bound(const ReduceDesc& d);

// Unit roundoff of the type a backend accumulates `input` in: float32 (2^-24) for FLOAT16 input
// under the default profile, float16 (2^-11) under the relaxed one; the input type otherwise.
double accumulation_unit_roundoff(DataType input, AccumulationProfile profile);

// Spacing of the representable numbers of the float type `t` at magnitude |v| (for |v| below
// the normal range, the subnormal spacing). For integer types, 1.
double ulp(DataType t, double v);

// What a conforming backend may return for each output element of a REDUCE with
// has_error_bound(d), row-major over the output. `input` is the logical input data,
// `reference_output` the logical reference result.
struct ReduceBounds {
  // docs/semantics.md's bound: E + 1 ulp of the output type around the reference (the final rounding is
  // taken at the reference's magnitude plus E).
  std::vector<double> bounds;
  // The admissible closed interval [RN(x - E), RN(x + E)] around the exact result x; see
  // reduce_bounds.cpp for why it is sound and tighter. NaN ends where it cannot be computed
  // (non-finite data or result): those elements fall back to `bounds`.
  std::vector<Range> ranges;
};
ReduceBounds reduce_error_bounds(const ReduceDesc& d, const Bytes& input, const Bytes& reference_output,
                                 AccumulationProfile profile);

}  // namespace dmlcert
