// Valid SLICE1 cases: windows inside the input (SLICE1.WINDOW_BOUNDS), nonzero strides of either
// sign (a negative stride walks from the window's end), small, large (beyond the window) and huge
// (near INT32_MAX, down to INT32_MIN) strides, windows touching either edge, and every legal
// output size (SLICE1.OUTPUT_SIZE), on the window shape it shares with SLICE (windows.cpp). Invalid
// windows include offsets whose sum with the window size passes 2^32.
#include <cstdlib>

#include "build.h"

namespace dmlcert::props {
namespace {

// Near INT32_MAX, and down to INT32_MIN, whose magnitude no int32 holds.
int64_t edge_stride(uint32_t choice, bool negative) {
  const int64_t magnitude = (negative ? 0x80000000 : 0x7FFFFFFF) - choice % 4;
  return negative ? -magnitude : magnitude;
}

OperatorDesc describe(const std::vector<WindowDim>& dims, TensorDesc input, TensorDesc output) {
  Slice1Desc d;
  for (const WindowDim& w : dims) {
    d.input_window_offsets.push_back(w.offset);
    d.input_window_sizes.push_back(w.window);
    d.input_window_strides.push_back(static_cast<int32_t>(w.stride));
  }
  d.input = std::move(input);
  d.output = std::move(output);
  return d;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  return window_case(spec, WindowOperator{true, edge_stride, describe});
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
         const uint64_t how = choices.below(4);
         if (how == 3 && offset_past_a_width(d.input_window_offsets[i], d.input_window_sizes[i],
                                             d.input.sizes[i], choices))
           return;
         if (how == 2) {
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
         // One more than fits, or 2^8 or 2^16 more (the most that fit again in a narrow field).
         TensorDesc at_most = d.output;
         at_most.sizes[i] = most;
         resize(c, Role::OUTPUT, i, grown_size(at_most, i, kMostGrownOutput, choices), choices);
       }},
  };
  return g;
}

}  // namespace dmlcert::props
