// Valid SLICE cases: Output[c] = Input[Offsets + Strides * c] with every read in bounds
// (SLICE.IN_BOUNDS), strides >= 1 (0 is class U, SLICE.STRIDE_ZERO), large strides up to the
// input size, and windows that touch either edge.
#include "build.h"

namespace dmlcert::props {
namespace {

// Raw choices for one dimension; all shrink towards 0, which realizes to size 1, stride 1.
struct SliceDim {
  uint32_t in = 0, stride = 0, count = 0, offset = 0;
  uint8_t edge = 0;  // 0: random offset and count, 1: as many elements as fit, 2: touch the end
};

rc::Gen<SliceDim> slice_dim_gen() {
  return rc::gen::construct<SliceDim>(raw(), raw(), raw(), raw(), rc::gen::element<uint8_t>(0, 1, 2));
}

Case realize(const CaseSpec& spec, DataType type, const std::vector<SliceDim>& dims, uint64_t budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
  SliceDesc d;
  Sizes in_sizes;
  for (const SliceDim& dim : dims) {
    const uint32_t in = budgeted_size(dim.in, budget);
    const uint32_t stride = 1 + dim.stride % in;
    const uint32_t max_count = 1 + (in - 1) / stride;
    const uint32_t count = dim.edge == 1 ? max_count : 1 + dim.count % max_count;
    const uint32_t max_offset = in - 1 - stride * (count - 1);
    const uint32_t offset = dim.edge == 2 ? max_offset : dim.offset % (max_offset + 1);
    in_sizes.push_back(in);
    d.offsets.push_back(offset);
    d.sizes.push_back(count);
    d.strides.push_back(stride);
  }
  d.input = realize_layout(type, in_sizes, in_layout, true);
  d.output = realize_layout(type, d.sizes, out_layout, false);
  Case c = new_case(spec, d);
  c.data.input = fill_movement(type, element_count(in_sizes).value_or(0), fill);
  share_broadcast_elements(d.input, c.data.input);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const RankRange ranks = rank_range(spec);
  return rc::gen::apply(
      [spec](DataType type, const std::vector<SliceDim>& dims, uint64_t budget, const LayoutSpec& in_layout,
             const LayoutSpec& out_layout,
             const FillSpec& fill) { return realize(spec, type, dims, budget, in_layout, out_layout, fill); },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      ranked(ranks, slice_dim_gen()), budget_gen(), layout_gen(true, spec.allow_broadcast_inputs),
      layout_gen(false), fill_gen(spec.mode));
}

}  // namespace

OperatorGenerators slice_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"SLICE.DIMCOUNT", nullptr, nullptr, nullptr, break_dimension_count},
      {"SLICE.DTYPE_MATCH", nullptr, nullptr, nullptr, output_type_differs},
      {"SLICE.SIZES_MATCH_OUTPUT", nullptr, nullptr, nullptr, grow_output},
      {"SLICE.IN_BOUNDS", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<SliceDesc>(c);
         const uint32_t i = pick_dim(d.input, choices);
         // The last read lands at or one past the end (a valid case reaches at most
         // Input.Sizes[i]-1, so the offset stays >= 1 before the shift).
         const uint32_t reach = d.strides[i] * (d.sizes[i] - 1);
         d.offsets[i] = d.input.sizes[i] - reach + static_cast<uint32_t>(choices.below(2));
       }},
  };
  g.unspecified = {
      {"SLICE.STRIDE_ZERO", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<SliceDesc>(c);
         d.strides[choices.below(d.strides.size())] = 0;
       }},
  };
  return g;
}

}  // namespace dmlcert::props
