// Valid SLICE cases: Output[c] = Input[Offsets + Strides * c] with every read in bounds
// (SLICE.IN_BOUNDS), strides >= 1 (0 is class U, SLICE.STRIDE_ZERO), large strides up to the
// input size, strides at the 32-bit edges where a dimension reads one element, and windows that
// touch either edge. Invalid bounds include sums Offsets + Strides * (Sizes - 1) that pass 2^32.
#include "build.h"

namespace dmlcert::props {
namespace {

// Raw choices for one dimension; all shrink towards 0, which realizes to size 1, stride 1.
struct SliceDim {
  uint32_t in = 0, stride = 0, count = 0, offset = 0;
  uint8_t edge = 0;          // 0: random offset and count, 1: as many elements as fit, 2: touch the end
  bool stride_edge = false;  // a dimension that reads one element takes a stride at a 32-bit edge
};

rc::Gen<SliceDim> slice_dim_gen() {
  return rc::gen::construct<SliceDim>(raw_size(), raw(), raw(), raw(), rc::gen::element<uint8_t>(0, 1, 2),
                                      rc::gen::weightedElement<bool>({{5, false}, {1, true}}));
}

// Strides that make Strides * (Sizes - 1) or Sizes * Strides leave 32 bits.
constexpr uint32_t kEdgeStrides[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};

Case realize(const CaseSpec& spec, DataType type, const std::vector<SliceDim>& dims, const SizeBudget& budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
  SliceDesc d;
  std::vector<uint32_t> raw_sizes;
  for (const SliceDim& dim : dims) raw_sizes.push_back(dim.in);
  const Sizes in_sizes = budgeted_sizes(raw_sizes, budget);
  for (size_t i = 0; i < dims.size(); ++i) {
    const SliceDim& dim = dims[i];
    const uint32_t in = in_sizes[i];
    uint32_t stride = 1 + dim.stride % in;
    const uint32_t max_count = 1 + (in - 1) / stride;
    const uint32_t count = dim.edge == 1 ? max_count : 1 + dim.count % max_count;
    const uint32_t max_offset = in - 1 - stride * (count - 1);
    const uint32_t offset = dim.edge == 2 ? max_offset : dim.offset % (max_offset + 1);
    // One element read: Offsets + Strides * 0 is in bounds whatever the stride.
    if (count == 1 && dim.stride_edge) stride = kEdgeStrides[dim.stride % std::size(kEdgeStrides)];
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
      [spec](DataType type, const std::vector<SliceDim>& dims, const SizeBudget& budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill) { return realize(spec, type, dims, budget, in_layout, out_layout, fill); },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      ranked(ranks, slice_dim_gen()), budget_gen(),
      layout_gen(true, spec.allow_broadcast_inputs, spec.layout_salt),
      layout_gen(false, true, spec.layout_salt), fill_gen(spec.mode, spec.data_salt));
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
         if (choices.below(3) == 2) {
           // The last read lands 2^32 elements past the offset: Offsets + Strides * (Sizes - 1)
           // equals the (in-range) offset once taken modulo 2^32.
           const uint32_t k = 1 + static_cast<uint32_t>(choices.below(3));
           d.strides[i] = uint32_t{1} << (32 - k);
           d.sizes[i] = (1u << k) + 1;
           resize(c, Role::OUTPUT, i, d.sizes[i], choices);
           return;
         }
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
