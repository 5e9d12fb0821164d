// Valid SLICE1 cases: windows inside the input (SLICE1.WINDOW_BOUNDS), nonzero strides of either
// sign (a negative stride walks from the window's end), small, large (beyond the window) and huge
// (near INT32_MAX, down to INT32_MIN) strides, windows touching either edge, and every legal
// output size (SLICE1.OUTPUT_SIZE). Invalid windows include offsets whose sum with the window size
// passes 2^32.
#include <cstdlib>

#include "build.h"

namespace dmlcert::props {
namespace {

struct Slice1Dim {
  uint32_t in = 0, window = 0, offset = 0, stride = 0, count = 0;
  uint8_t stride_kind = 0;  // 0: within the window, 1: beyond it, 2: near INT32_MAX
  bool negative = false;
  uint8_t edge = 0;  // 0: random, 1: whole input as window and full output, 2: window at the end
};

rc::Gen<Slice1Dim> slice1_dim_gen() {
  return rc::gen::construct<Slice1Dim>(raw_size(), raw(), raw(), raw(), raw(),
                                       rc::gen::weightedElement<uint8_t>({{6, 0}, {2, 1}, {1, 2}}),
                                       rc::gen::arbitrary<bool>(), rc::gen::element<uint8_t>(0, 1, 2));
}

Case realize(const CaseSpec& spec, DataType type, const std::vector<Slice1Dim>& dims,
             const SizeBudget& budget, const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill) {
  Slice1Desc d;
  std::vector<uint32_t> raw_sizes;
  for (const Slice1Dim& dim : dims) raw_sizes.push_back(dim.in);
  const Sizes in_sizes = budgeted_sizes(raw_sizes, budget);
  Sizes out_sizes;
  for (size_t i = 0; i < dims.size(); ++i) {
    const Slice1Dim& dim = dims[i];
    const uint32_t in = in_sizes[i];
    const uint32_t window = dim.edge == 1 ? in : 1 + dim.window % in;
    const uint32_t offset = dim.edge == 2 ? in - window : dim.offset % (in - window + 1);
    int64_t magnitude = 1 + dim.stride % window;
    if (dim.stride_kind == 1) magnitude = window + dim.stride % 4;
    // Down to INT32_MIN, whose magnitude no int32 holds.
    if (dim.stride_kind == 2) magnitude = (dim.negative ? 0x80000000 : 0x7FFFFFFF) - dim.stride % 4;
    const uint32_t max_count = 1 + static_cast<uint32_t>((window - 1) / magnitude);
    const uint32_t count = dim.edge == 1 ? max_count : 1 + dim.count % max_count;
    out_sizes.push_back(count);
    d.input_window_offsets.push_back(offset);
    d.input_window_sizes.push_back(window);
    d.input_window_strides.push_back(static_cast<int32_t>(dim.negative ? -magnitude : magnitude));
  }
  d.input = realize_layout(type, in_sizes, in_layout, true);
  d.output = realize_layout(type, out_sizes, out_layout, false);
  Case c = new_case(spec, d);
  c.data.input = fill_movement(type, element_count(in_sizes).value_or(0), fill);
  share_broadcast_elements(d.input, c.data.input);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const RankRange ranks = rank_range(spec);
  return rc::gen::apply(
      [spec](DataType type, const std::vector<Slice1Dim>& dims, const SizeBudget& budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill) { return realize(spec, type, dims, budget, in_layout, out_layout, fill); },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      ranked(ranks, slice1_dim_gen()), budget_gen(),
      layout_gen(true, spec.allow_broadcast_inputs, spec.layout_salt),
      layout_gen(false, true, spec.layout_salt), fill_gen(spec.mode, spec.data_salt));
}

}  // namespace

OperatorGenerators slice1_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"SLICE1.DIMCOUNT", nullptr, nullptr, nullptr, break_dimension_count},
      {"SLICE1.DTYPE_MATCH", nullptr, nullptr, nullptr, output_type_differs},
      {"SLICE1.WINDOW_EMPTY", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<Slice1Desc>(c);
         d.input_window_sizes[pick_dim(d.input, choices)] = 0;
       }},
      {"SLICE1.WINDOW_BOUNDS", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<Slice1Desc>(c);
         const uint32_t i = pick_dim(d.input, choices);
         if (choices.below(3) == 2) {
           // Offset + size passes 2^32 and, taken modulo 2^32, lands inside the input.
           const uint32_t within =
               static_cast<uint32_t>(choices.below(std::min(d.input_window_sizes[i], d.input.sizes[i] + 1)));
           d.input_window_offsets[i] =
               static_cast<uint32_t>((uint64_t{1} << 32) - d.input_window_sizes[i] + within);
           return;
         }
         d.input_window_offsets[i] =
             d.input.sizes[i] - d.input_window_sizes[i] + 1 + static_cast<uint32_t>(choices.below(2));
       }},
      {"SLICE1.STRIDE_ZERO", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<Slice1Desc>(c);
         d.input_window_strides[pick_dim(d.input, choices)] = 0;
       }},
      {"SLICE1.OUTPUT_SIZE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<Slice1Desc>(c);
         const uint32_t i = pick_dim(d.input, choices);
         const int64_t s = d.input_window_strides[i];
         const uint32_t most =
             1 + static_cast<uint32_t>((d.input_window_sizes[i] - 1) / static_cast<uint64_t>(s < 0 ? -s : s));
         resize(c, Role::OUTPUT, i, most + 1, choices);
       }},
  };
  return g;
}

}  // namespace dmlcert::props
