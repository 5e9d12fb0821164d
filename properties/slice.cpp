// Valid SLICE cases: Output[c] = Input[Offsets + Strides * c] with every read in bounds
// (SLICE.IN_BOUNDS), strides >= 1 (0 is class U, SLICE.STRIDE_ZERO), strides within and beyond the
// window, strides at the 32-bit edges where a dimension reads one element, and reads that touch
// either edge; the window shape is SLICE1's (windows.cpp). Invalid bounds include sums
// Offsets + Strides * (Sizes - 1) that pass 2^32.
#include "build.h"

namespace dmlcert::props {
namespace {

// Strides that make Strides * (Sizes - 1) or Sizes * Strides leave 32 bits.
int64_t edge_stride(uint32_t choice, bool) {
  constexpr uint32_t kEdgeStrides[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  return kEdgeStrides[choice % std::size(kEdgeStrides)];
}

// SLICE reads Offsets + Strides * c: the window's first element, or, for a window at the end, the
// offset that puts the last read on the input's last element.
OperatorDesc describe(const std::vector<WindowDim>& dims, TensorDesc input, TensorDesc output) {
  SliceDesc d;
  for (const WindowDim& w : dims) {
    const uint32_t span = static_cast<uint32_t>(static_cast<uint64_t>(w.stride) * (w.count - 1) + 1);
    d.offsets.push_back(w.at_end ? w.offset + w.window - span : w.offset);
    d.sizes.push_back(w.count);
    d.strides.push_back(static_cast<uint32_t>(w.stride));
  }
  d.input = std::move(input);
  d.output = std::move(output);
  return d;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  return window_case(spec, WindowOperator{false, edge_stride, describe});
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
         const uint64_t how = choices.below(4);
         const uint64_t reach = uint64_t{d.strides[i]} * (d.sizes[i] - 1);
         if (how == 3 && offset_past_a_width(d.offsets[i], reach + 1, d.input.sizes[i], choices)) return;
         if (how == 2) {
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
         d.offsets[i] =
             d.input.sizes[i] - static_cast<uint32_t>(reach) + static_cast<uint32_t>(choices.below(2));
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
