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
};
std::string_view name(Behaviour b);

// A reading and its parameter: which competing update wins, counting from 0 in row-major tuple
// order (NthWriteWins). Operators ignore readings that do not concern them.
struct Reading {
  Behaviour behaviour = Behaviour::Specified;
  uint32_t nth = 0;
  bool operator==(const Reading&) const = default;
};

}  // namespace dmlcert
