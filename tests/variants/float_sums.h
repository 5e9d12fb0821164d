// Float32 accumulation for the summation variants: a group's terms as floats, and the float
// result stored to a FLOAT32 or FLOAT16 output (rounded once more, to nearest even).
#pragma once

#include <vector>

#include "mutant_util.h"

namespace dmlcert::variants {

using mutants::Elements;

// The terms of a SUM-like function: x, |x| (L1) or x*x (SUM_SQUARE, L2), each rounded to float.
inline std::vector<float> float_terms(DataType t, ReduceFunction f, const Elements& xs) {
  std::vector<float> out;
  for (const std::byte* p : xs) {
    const float x = t == DataType::FLOAT16 ? static_cast<float>(load<half>(p)) : load<float>(p);
    switch (f) {
      case ReduceFunction::L1: out.push_back(std::fabs(x)); break;
      case ReduceFunction::SUM_SQUARE:
      case ReduceFunction::L2: out.push_back(x * x); break;
      default: out.push_back(x); break;
    }
  }
  return out;
}

// The function's result from the float sum of its terms.
inline float finish(ReduceFunction f, float sum, std::size_t n) {
  if (f == ReduceFunction::AVERAGE) return sum / static_cast<float>(n);
  if (f == ReduceFunction::L2) return std::sqrt(sum);
  return sum;
}

inline void store_float(DataType t, float v, std::byte* p) {
  if (t == DataType::FLOAT16)
    store<half>(p, half(v));
  else
    store<float>(p, v);
}

inline bool float32_or_16(DataType t) {
  return t == DataType::FLOAT32 || t == DataType::FLOAT16;
}

}  // namespace dmlcert::variants
