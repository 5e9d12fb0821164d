#include "dmlcert/reduce_function.h"

#include <array>

namespace dmlcert {
namespace {
constexpr std::array<std::string_view, kReduceFunctionCount> kNames = {
    "ARGMAX",      "ARGMIN", "AVERAGE", "L1",       "L2",  "LOG_SUM",
    "LOG_SUM_EXP", "MAX",    "MIN",     "MULTIPLY", "SUM", "SUM_SQUARE"};
}  // namespace

bool is_valid(ReduceFunction f) {
  return static_cast<uint32_t>(f) < kReduceFunctionCount;
}
std::string name(ReduceFunction f) {
  if (!is_valid(f)) return "FUNCTION(" + std::to_string(static_cast<uint32_t>(f)) + ")";
  return std::string(kNames[static_cast<size_t>(f)]);
}
std::optional<ReduceFunction> parse_reduce_function(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<ReduceFunction>(i);
  return std::nullopt;
}
bool is_arg_function(ReduceFunction f) {
  return f == ReduceFunction::ARGMAX || f == ReduceFunction::ARGMIN;
}

}  // namespace dmlcert
