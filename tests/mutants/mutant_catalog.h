// The mutant zoo: one entry per mutant backend (tests/mutants/<id>.cpp, built as the plugin
// dmlcert_mutant_<id>). Each is the reference backend with exactly one realistic bug. The
// description is the plugin's name ("mutant: ...") and a row of docs/mutation-score.md.
#pragma once

#include <string_view>

namespace dmlcert::mutants {

struct MutantInfo {
  std::string_view id;           // file stem and plugin target suffix
  std::string_view op;           // the operator the bug lives in
  std::string_view fault;        // the kind of fault
  std::string_view description;  // the bug, in one line
  // Why the shrunk repro may exceed rank 3 or 64 output elements; empty when it may not.
  std::string_view large_repro = {};
};

inline constexpr MutantInfo kMutants[] = {
    // SLICE
    {"slice_offset_scaled_by_stride", "SLICE", "index arithmetic",
     "SLICE reads Input[(Offsets + c) * Strides] instead of Input[Offsets + Strides * c]"},
    {"slice_input_strides_ignored", "SLICE", "input strides ignored",
     "SLICE reads its input as packed row-major, ignoring Input.Strides"},
    {"slice_rejects_rank_above_5", "SLICE", "validation too strict",
     "SLICE rejects DimensionCount above 5 (the limit before 3_0) at every feature level",
     "needs rank 6 or more: the bug is the rank limit"},
    {"slice_nan_payload_canonicalized", "SLICE", "NaN payload lost",
     "SLICE copies float elements by value and writes every NaN as the default quiet NaN"},
    {"total_bytes_unchecked", "all", "validation too lax",
     "No operator checks TotalTensorSizeInBytes (T.TOTAL_BYTES): short tensors are executed"},
    // SLICE1
    {"slice1_negative_stride_not_reversed", "SLICE1", "negative strides",
     "SLICE1 walks a negative-stride dimension forwards from the window's start"},
    {"slice1_window_end_off_by_one", "SLICE1", "window ends",
     "SLICE1 starts a negative-stride walk at offset + size instead of offset + size - 1"},
    {"slice1_output_strides_ignored", "SLICE1", "output strides ignored",
     "SLICE1 writes its output packed row-major, ignoring Output.Strides (padding, permutations)"},
    {"slice1_accepts_zero_stride", "SLICE1", "validation too lax",
     "SLICE1 accepts InputWindowStrides[i] == 0 (class I, SLICE1.STRIDE_ZERO) and executes it"},
    {"slice1_rejects_edge_window", "SLICE1", "validation too strict",
     "SLICE1 checks offset + size < Input.Sizes (not <=), rejecting windows that end at the edge"},
    // SCATTER_ND
    {"scatter_nd_leading_dims_not_stripped", "SCATTER_ND", "leading-ones handling",
     "SCATTER_ND tuples index the first k dimensions of the full rank, not of the meaningful ones"},
    {"scatter_nd_output_not_initialized", "SCATTER_ND", "output = input missing",
     "SCATTER_ND writes the updates but never copies Input to Output"},
    {"scatter_nd_updates_strides_ignored", "SCATTER_ND", "input strides ignored",
     "SCATTER_ND reads Updates as packed row-major, ignoring Updates.Strides"},
    {"scatter_nd_clears_output_in_16_byte_blocks", "SCATTER_ND", "out-of-bounds write",
     "SCATTER_ND first zeroes the output in whole 16-byte blocks, past TotalTensorSizeInBytes"},
    {"scatter_nd_crashes_on_empty_block", "SCATTER_ND", "crash",
     "SCATTER_ND dereferences a null block pointer when tuples index every meaningful dimension"},
    // REDUCE
    {"argmax_last_on_ties", "REDUCE", "tie-breaking",
     "ARGMAX returns the last index of equal maxima, not the first"},
    {"argmin_axes_column_major", "REDUCE", "multi-axis ARGMIN",
     "ARGMIN flattens the index over several reduced axes with the first axis fastest"},
    {"average_divides_by_last_axis", "REDUCE", "wrong divisor",
     "AVERAGE divides by the size of the last reduced axis instead of N"},
    {"max_starts_at_zero", "REDUCE", "wrong initial value",
     "MAX starts its running maximum at 0, so groups of negative values give 0"},
    {"min_starts_at_int32_max", "REDUCE", "wrong initial value",
     "MIN starts at INT32_MAX converted to the element type (-1 for INT8/INT16, low for 64-bit)"},
    {"sum_fp16_accumulates_in_fp16", "REDUCE", "fp16 accumulation", "FLOAT16 SUM accumulates in FLOAT16"},
    {"fp16_rounds_toward_zero", "REDUCE", "fp16 rounding",
     "FLOAT16 SUM/AVERAGE/L1/L2 round their float32 result toward zero, not to nearest even"},
    {"max_unsigned_compared_signed", "REDUCE", "signedness",
     "MAX on unsigned types compares values as signed (UINT8 200 loses to 100)"},
    {"l1_integer_without_abs", "REDUCE", "signedness", "L1 on signed integer types sums x instead of |x|"},
    {"sum_int64_through_double", "REDUCE", "precision",
     "SUM on 64-bit integers accumulates in double (exact only below 2^53)"},
    {"reduce_writes_input", "REDUCE", "write to an input",
     "REDUCE uses its input buffer as scratch space (writes the input)"},
    // GATHER_ELEMENTS
    {"gather_elements_axis_from_end", "GATHER_ELEMENTS", "axis order",
     "GATHER_ELEMENTS counts Axis from the last dimension (rank - 1 - Axis)"},
    {"gather_elements_negative_index_unsigned", "GATHER_ELEMENTS", "signedness",
     "GATHER_ELEMENTS reads signed indices as unsigned, so legal negative indices are rejected"},
    {"gather_elements_negative_zero_lost", "GATHER_ELEMENTS", "-0.0 lost",
     "GATHER_ELEMENTS copies float elements as x + 0.0, turning -0.0 into +0.0"},
    {"gather_elements_hangs_on_negative_index", "GATHER_ELEMENTS", "hang",
     "GATHER_ELEMENTS never returns when an index is negative"},
};

// The description of a mutant id ("" for an unknown id).
constexpr std::string_view describe(std::string_view id) {
  for (const MutantInfo& m : kMutants)
    if (m.id == id) return m.description;
  return {};
}

}  // namespace dmlcert::mutants
