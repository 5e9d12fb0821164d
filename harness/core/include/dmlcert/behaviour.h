// The readings of what the specification leaves open in class U cases. The reference computes
// one admissible result per reading a rule admits (rules.h), and reports name the reading a
// backend's result matched.
#pragma once

#include <cstdint>
#include <string_view>

namespace dmlcert {

enum class Behaviour : uint8_t {
  Specified,       // the documented formula, read literally (the reference's own reading)
  NthWriteWins,    // SCATTERND.DUPLICATE: at each contested element, the n-th competing update
  NanPropagating,  // REDUCE.NONFINITE (MIN, MAX, ARG*): a NaN wins, the first one for ARG*
  NanIgnoring,     // REDUCE.NONFINITE (MIN, MAX, ARG*): NaNs are skipped unless all are NaN
  // Descriptive readings, for the behaviour profile only: what a backend that executes an index
  // the rule puts out of range (*.INDEX_RANGE) might do with it.
  IndexClamped,  // into [0, d): below 0 (after negative indices) to 0, from d up to d - 1
  IndexWrapped,  // modulo d
};
std::string_view name(Behaviour b);

// A reading and its parameter: which competing update wins, counting from 0 in row-major tuple
// order (NthWriteWins). Operators ignore readings that do not concern them.
struct Reading {
  Behaviour behaviour = Behaviour::Specified;
  uint32_t nth = 0;
  bool operator==(const Reading&) const = default;
};

// A behaviour a report names when a backend's result of a class U case matches the reference's
// result under `reading` (docs/design.md, "Behaviour profile"): "first write wins", "clamped".
struct ProfileReading {
  std::string_view label;
  Reading reading;
};

}  // namespace dmlcert
