// Legitimate variants: backends that differ from the reference where docs/semantics.md leaves room (the
// summation order, the accumulation type, class U behaviour). Each must certify; a harness that
// fails one of them is stricter than the specification. Built as dmlcert_variant_<id>.
#pragma once

#include <string_view>

namespace dmlcert::variants {

struct VariantInfo {
  std::string_view id;
  std::string_view description;
};

inline constexpr VariantInfo kVariants[] = {
    {"sum_pairwise", "float SUM, AVERAGE and L1 by pairwise summation in float32"},
    {"sum_reversed", "float SUM and SUM_SQUARE accumulated in float32 in reverse order"},
    {"fp16_accumulates_in_float32",
     "FLOAT16 SUM, AVERAGE, L1, SUM_SQUARE and L2 accumulate in float32, not double"},
    {"rejects_unspecified", "rejects every class U descriptor and every class U data with invalid-argument"},
    {"clamps_indices", "clamps out-of-range SCATTER_ND and GATHER_ELEMENTS indices into the dimension"},
    {"scatter_nd_first_write_wins", "SCATTER_ND resolves duplicate index tuples first-write-wins"},
    {"plan_cache",
     "SLICE and SLICE1 cache compiled plans keyed on the whole descriptor and the feature level"},
    {"output_padding_written",
     "every successful call zeroes the output's padding inside TotalTensorSizeInBytes"},
    {"claims_some_cells",
     "implements no FLOAT64, no LOG_SUM or LOG_SUM_EXP and no GATHER_ELEMENTS, and says so"},
};

constexpr std::string_view describe(std::string_view id) {
  for (const VariantInfo& v : kVariants)
    if (v.id == id) return v.description;
  return {};
}

}  // namespace dmlcert::variants

#define DMLCERT_EXPORT_VARIANT(id, Class) \
  DMLCERT_EXPORT_PATCHED_REFERENCE("variant: " + std::string(dmlcert::variants::describe(#id)), Class)
