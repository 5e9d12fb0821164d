// The REDUCE functions (docs/ops/reduce.md). They are part of the generic model because
// support tables, capability queries and reports distinguish REDUCE by function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dmlcert {

// Values are DirectML's DML_REDUCE_FUNCTION. The enum may hold a value outside the 12 (that is
// how OP.FUNCTION violations are represented), so always check is_valid().
enum class ReduceFunction : uint32_t {
  ARGMAX = 0,
  ARGMIN = 1,
  AVERAGE = 2,
  L1 = 3,
  L2 = 4,
  LOG_SUM = 5,
  LOG_SUM_EXP = 6,
  MAX = 7,
  MIN = 8,
  MULTIPLY = 9,
  SUM = 10,
  SUM_SQUARE = 11,
};
inline constexpr int kReduceFunctionCount = 12;
inline constexpr ReduceFunction kAllReduceFunctions[kReduceFunctionCount] = {
    ReduceFunction::ARGMAX,      ReduceFunction::ARGMIN, ReduceFunction::AVERAGE,
    ReduceFunction::L1,          ReduceFunction::L2,     ReduceFunction::LOG_SUM,
    ReduceFunction::LOG_SUM_EXP, ReduceFunction::MAX,    ReduceFunction::MIN,
    ReduceFunction::MULTIPLY,    ReduceFunction::SUM,    ReduceFunction::SUM_SQUARE};

bool is_valid(ReduceFunction f);
std::string name(ReduceFunction f);  // "SUM", or "FUNCTION(99)" for an invalid value
std::optional<ReduceFunction> parse_reduce_function(std::string_view s);
bool is_arg_function(ReduceFunction f);  // ARGMAX or ARGMIN

}  // namespace dmlcert
