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
  // The bug lives in state kept between calls: its failure must come back only after other cases,
  // as a short sequence that replays in one process (docs/design.md, "The engine").
  bool state_dependent = false;
  // Why a quick certification does not catch the mutant yet (the path its bug is on is not reached),
  // empty when it does. The mutation test reports such a mutant as skipped with this reason;
  // scripts/mutation-score certifies it like the others and shows it survive.
  std::string_view not_caught_yet = {};
  // Why the mutant's one bug reports more than one cause (report_summary.h): its minimal repros
  // really differ (docs/mutation-score.md, "Causes"); empty when it reports one.
  std::string_view several_causes = {};
};

// Why a state-dependent mutant's repro is not small: sequences are bisected, not shrunk.
inline constexpr std::string_view kSequenceRepro = "a sequence of generated cases: bisected, not shrunk";
// Why a mutant whose bug switches on above a size, or past a narrow field, has a large repro.
inline constexpr std::string_view kNeeds64KiB = "needs 64 KiB: the bug is in the path above that size";
inline constexpr std::string_view kNeeds1MiB =
    "needs an output of 1 MiB: the bug is in the path above that size";
inline constexpr std::string_view kNeeds2p16 = "needs a dimension past 65535: the bug is a 16-bit field";

// Why a mutant's one bug gives two causes (docs/mutation-score.md, "Causes"): a wrong index that
// lands outside its dimension in some cases, where the backend's own range check rejects the
// valid case, and inside it in others, where it reads the wrong element. Its minimal repros are a
// rejection and a wrong value.
inline constexpr std::string_view kRejectedOrWrong =
    "the wrong index is rejected by the backend's own range check or reads the wrong element";
// Why a whole-block clear gives two causes: executed, it writes past the output's end (oob);
// rejected, it has already written the output. Its minimal repros are a valid case whose output
// is not a multiple of the block, and a class U case the backend rejects.
inline constexpr std::string_view kWritesPastOrBeforeRejecting =
    "the clear writes past the output of a case it runs and into the output of a case it rejects";

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
    {"scatter_nd_leading_dims_not_stripped",
     "SCATTER_ND",
     "leading-ones handling",
     "SCATTER_ND tuples index the first k dimensions of the full rank, not of the meaningful ones",
     {},
     false,
     {},
     kRejectedOrWrong},
    {"scatter_nd_output_not_initialized", "SCATTER_ND", "output = input missing",
     "SCATTER_ND writes the updates but never copies Input to Output"},
    {"scatter_nd_updates_strides_ignored", "SCATTER_ND", "input strides ignored",
     "SCATTER_ND reads Updates as packed row-major, ignoring Updates.Strides"},
    {"scatter_nd_clears_output_in_16_byte_blocks",
     "SCATTER_ND",
     "out-of-bounds write",
     "SCATTER_ND first zeroes the output in whole 16-byte blocks, past TotalTensorSizeInBytes",
     {},
     false,
     {},
     kWritesPastOrBeforeRejecting},
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
    {"gather_elements_axis_from_end",
     "GATHER_ELEMENTS",
     "axis order",
     "GATHER_ELEMENTS counts Axis from the last dimension (rank - 1 - Axis)",
     {},
     false,
     {},
     kRejectedOrWrong},
    {"gather_elements_negative_index_unsigned", "GATHER_ELEMENTS", "signedness",
     "GATHER_ELEMENTS reads signed indices as unsigned, so legal negative indices are rejected"},
    {"gather_elements_negative_zero_lost", "GATHER_ELEMENTS", "-0.0 lost",
     "GATHER_ELEMENTS copies float elements as x + 0.0, turning -0.0 into +0.0"},
    {"gather_elements_hangs_on_negative_index", "GATHER_ELEMENTS", "hang",
     "GATHER_ELEMENTS never returns when an index is negative"},
    // State kept between calls
    {"slice_plan_cache_ignores_strides", "SLICE", "state: plan cache",
     "SLICE caches compiled plans keyed on sizes, window and type, not on the tensors' strides",
     kSequenceRepro, true},
    {"reduce_scratch_sized_by_first_call", "REDUCE", "state: scratch buffer",
     "REDUCE stages groups in a scratch buffer sized by the first call and never grown", kSequenceRepro,
     true},
    {"sum_accumulator_not_cleared", "REDUCE", "state: accumulator",
     "Float SUM keeps its accumulators between calls and clears them only when they grow", kSequenceRepro,
     true},
    {"slice1_validation_cached_across_levels", "SLICE1", "state: validation cache",
     "SLICE1 remembers accepted descriptors without their feature level and runs them unchecked at any level",
     kSequenceRepro, true},
    {"gather_elements_kernel_cache_ignores_index_type", "GATHER_ELEMENTS", "state: kernel cache",
     "GATHER_ELEMENTS caches kernels keyed without the index type, so a later call reads indices at the "
     "wrong width",
     kSequenceRepro, true},
    // Arithmetic at the edges
    {"slice_bounds_in_32_bits", "SLICE", "32-bit arithmetic",
     "SLICE checks Offsets + Strides * (Sizes - 1) < Input.Sizes in 32 bits, where the sum wraps"},
    {"slice1_window_bounds_in_32_bits", "SLICE1", "32-bit arithmetic",
     "SLICE1 checks InputWindowOffsets + InputWindowSizes <= Input.Sizes in 32 bits, where the sum wraps"},
    {"element_limit_summed_in_32_bits", "all", "32-bit arithmetic",
     "T.ELEMENT_LIMIT checks each (Sizes[i]-1) * Strides[i] but adds them up in 32 bits"},
    {"total_bytes_in_32_bits", "all", "32-bit arithmetic",
     "T.TOTAL_BYTES computes span * element size in 32 bits, so a span over 4 GiB needs a few bytes"},
    {"gather_elements_rejects_minus_d", "GATHER_ELEMENTS", "index edge",
     "GATHER_ELEMENTS accepts negative indices in (-d, 0), rejecting the legal index -d"},
    {"gather_elements_index_magnitude_overflows", "GATHER_ELEMENTS", "index extreme",
     "GATHER_ELEMENTS range-checks -index in 64 bits, which INT64_MIN overflows: it reads far before the "
     "input"},
    // Dimensions at high ranks
    {"slice1_rank8_innermost_ignored", "SLICE1", "rank 8",
     "SLICE1 at rank 8 writes only the first element of each innermost output row",
     "needs rank 8: the bug is in the rank-8 path"},
    {"reduce_rank8_innermost_ignored", "REDUCE", "rank 8",
     "REDUCE at rank 8 reduces as if the innermost dimension had size 1",
     "needs rank 8: the bug is in the rank-8 path"},
    // Output written by a rejection
    {"scatter_nd_partial_write_then_reject", "SCATTER_ND", "write before rejection",
     "SCATTER_ND copies Input to Output, then rejects an out-of-range index (class U) with the output "
     "written"},
    {"slice1_clears_output_padding_first", "SLICE1", "write before rejection",
     "SLICE1 zeroes the output's padding bytes before it validates, so rejected calls have written them"},
    // Support tables below the certification level
    {"slice_64bit_types_at_every_level", "SLICE", "table below the level",
     "SLICE executes FLOAT64, INT64 and UINT64 at every feature level (the table adds them at 4_1)"},
    {"slice1_ranks_4_to_5_until_4_1", "SLICE1", "table below the level",
     "SLICE1 allows only ranks 4-5 before 4_1 (the table allows 1-8 from 3_0)"},
    // Fast paths that switch on above a size
    {"slice_rows_tail_dropped_above_64k", "SLICE", "vector tail",
     "SLICE outputs of 64 KiB and more copy rows in 16-byte blocks and never write a row's partial last "
     "block",
     kNeeds64KiB},
    {"slice_split_loses_odd_row", "SLICE", "thread split",
     "SLICE outputs of 64 KiB and more are split by rows between two threads, each taking rows / 2: an odd "
     "last row is never written",
     kNeeds64KiB},
    {"slice1_reversed_tail_written_whole", "SLICE1", "vector tail",
     "SLICE1 reversed rows of 1024 elements and more are moved 8 at a time and the last block is stored "
     "whole, "
     "up to 7 elements past the row",
     "needs a reversed row of 1024 elements: the bug is in that vector path"},
    {"scatter_nd_copy_tail_dropped_above_1m", "SCATTER_ND", "streaming tail",
     "SCATTER_ND outputs of 1 MiB and more get Input copied in 64-byte blocks, the last partial block left "
     "out",
     kNeeds1MiB},
    {"gather_elements_tail_dropped_above_1m", "GATHER_ELEMENTS", "streaming tail",
     "GATHER_ELEMENTS outputs of 1 MiB and more are gathered 8 at a time and the last count % 8 are never "
     "written",
     kNeeds1MiB},
    {"reduce_split_skips_middle_output", "REDUCE", "thread split",
     "REDUCE inputs of 64 KiB and more split the outputs between two threads as [0, n/2) and [n/2 + 1, n)",
     kNeeds64KiB},
    {"sum_blocks_drop_last_partial", "REDUCE", "blocked reduction",
     "Float SUM over more than 8192 elements per output adds blocks of 4096 and forgets a partial last block",
     "needs a fold of more than 8192 elements: the bug is in the blocked sum"},
    // Fields narrower than the values they hold
    {"argmax_index_in_16_bits", "REDUCE", "narrow field",
     "ARGMAX and ARGMIN keep the index in 16 bits: past 65536 elements per output it wraps",
     "needs a fold of more than 65536 elements: the bug is a 16-bit index"},
    {"argmax_float16_index_in_16_bits", "REDUCE", "narrow field",
     "ARGMAX and ARGMIN over FLOAT16 keep the index in 16 bits: past 65536 elements per output it wraps",
     "needs a fold of more than 65536 elements: the bug is a 16-bit index"},
    {"average_float32_count_in_16_bits", "REDUCE", "narrow field",
     "AVERAGE over FLOAT32 divides by the element count kept in 16 bits: from 65536 elements per output "
     "it divides by N modulo 2^16",
     "needs a fold of 65536 elements or more: the bug is a 16-bit count"},
    {"gather_elements_axis_size_in_16_bits", "GATHER_ELEMENTS", "narrow field",
     "GATHER_ELEMENTS keeps the gathered axis's size in 16 bits, so legal indices along an axis of 65536 "
     "elements or more are rejected",
     kNeeds2p16},
    {"slice_offsets_in_16_bits", "SLICE", "narrow field",
     "SLICE packs each offset into 16 bits: an offset of 65536 or more reads from the wrong place",
     kNeeds2p16},
    {"slice1_window_size_in_16_bits", "SLICE1", "narrow field",
     "SLICE1 keeps window sizes in 16 bits: a negative-stride window of 65536 or more starts at the wrong "
     "end",
     kNeeds2p16},
    {"scatter_nd_offsets_in_16_bits", "SCATTER_ND", "narrow field",
     "SCATTER_ND flattens each index tuple to a 16-bit element offset, so updates past offset 65535 land "
     "early",
     kNeeds2p16},
    {"reduce_axes_in_8_bits", "REDUCE", "narrow field",
     "REDUCE reads each axis into 8 bits before REDUCE.AXIS_RANGE, so axis 256 + a is taken for a and "
     "executed"},
    // Accumulators and conversions that lose bits
    {"sum_int32_through_float", "REDUCE", "float accumulator",
     "SUM and L1 on INT32 and UINT32 accumulate in float (exact only below 2^24)"},
    {"multiply_int64_through_double", "REDUCE", "double accumulator",
     "MULTIPLY on INT64 and UINT64 multiplies in double (exact only below 2^53)"},
    {"scatter_nd_int64_through_double", "SCATTER_ND", "integer through double",
     "SCATTER_ND moves INT64 and UINT64 updates through double, losing the low bits of values past 2^53"},
    {"slice1_signalling_nan_quieted", "SLICE1", "signalling NaN quieted",
     "SLICE1 moves FLOAT32 and FLOAT64 through a conversion to the other float type, which quiets signalling "
     "NaNs"},
    {"gather_elements_subnormals_flushed", "GATHER_ELEMENTS", "subnormals flushed",
     "GATHER_ELEMENTS copies floats by value with subnormals flushed to zero (fast-math, FTZ/DAZ)"},
};

// The description of a mutant id ("" for an unknown id).
constexpr std::string_view describe(std::string_view id) {
  for (const MutantInfo& m : kMutants)
    if (m.id == id) return m.description;
  return {};
}

}  // namespace dmlcert::mutants
