// The comparison model (docs/semantics.md, "Numbers"): bit-exact for data movement, MIN, MAX, ARGMIN,
// ARGMAX and integer reductions; a per-element error bound computed from the case's data for
// float reductions; set-valued results for class U cases with several admissible results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/case.h"
#include "dmlcert/tensor.h"

namespace dmlcert {

// How FLOAT16 reductions may accumulate (docs/semantics.md: float32 under the default profile, float16
// under a relaxed one).
enum class AccumulationProfile : uint8_t { Default, Relaxed };

// A closed interval of admissible values for one element.
struct Range {
  double lo, hi;
  bool known() const { return lo == lo && hi == hi; }  // not NaN
};

struct Expectation {
  // Logical outputs. An element passes when it matches the same element of any candidate.
  std::vector<Bytes> candidates;
  // Per-element absolute error bounds, against candidates[0]. Empty means bit-exact (except that
  // float reductions compare +0 and -0 equal, see `zero_signs_equal`).
  std::vector<double> bounds;
  // Per-element admissible intervals (float reductions). Where an element has a known range it
  // replaces that element's bound.
  std::vector<Range> ranges;
  bool zero_signs_equal = false;
  bool nan_equal = false;  // any NaN matches any NaN (float reductions)
};

struct Mismatch {
  uint64_t index;  // row-major logical index
  Coord coord;     // the same element's logical coordinate
  std::string expected, actual;
  double bound = 0;
  std::optional<Range> range;  // when the element was judged against an interval
  std::string range_text;      // the same interval in the output type's spelling: "[206.6, 206.6]"
};
struct CompareResult {
  bool ok = true;
  uint64_t compared = 0;  // elements compared
  uint64_t mismatches = 0;
  std::vector<Mismatch> first;  // the first few, for messages
  std::string summary() const;  // "3 of 16 elements differ; first at [0,1]: expected 2, got 3"
};

CompareResult compare(const TensorDesc& output, const Expectation& expected, const Bytes& actual);

// The expectation for a case's output, given the reference result of a valid case (or an
// admissible result of a class U case). Applies the case's tolerance override when it has one.
Expectation expectation_for(const Case& c, const Bytes& reference_output, AccumulationProfile profile);

}  // namespace dmlcert
