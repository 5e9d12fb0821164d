// The shape SLICE and SLICE1 share: per dimension, a window inside the input walked with a stride
// (build.h, WindowOperator). One set of raw choices and one realization serve both operators; each
// says what its descriptor makes of the dimensions (slice.cpp, slice1.cpp).
#include <algorithm>
#include <numeric>

#include "build.h"
#include "dmlcert/case_buffers.h"
#include "dmlcert/runner.h"

namespace dmlcert::props {
namespace {

rc::Gen<WindowChoice> window_choice_gen() {
  return rc::gen::construct<WindowChoice>(raw_size(), raw(), raw(), raw(), raw(),
                                          rc::gen::weightedElement<uint8_t>({{6, 0}, {2, 1}, {1, 2}}),
                                          rc::gen::arbitrary<bool>(), rc::gen::element<uint8_t>(0, 1, 2));
}

uint32_t span_of(const WindowDim& d) {
  const uint64_t magnitude = static_cast<uint64_t>(d.stride < 0 ? -d.stride : d.stride);
  return static_cast<uint32_t>(magnitude * (d.count - 1) + 1);
}

// An ordinary dimension over an input extent `in`: a window, a stride within it, beyond it or at a
// 32-bit edge, and any output count that fits (SLICE1.OUTPUT_SIZE's range).
WindowDim ordinary_dim(const WindowOperator& op, const WindowChoice& ch, uint32_t in) {
  WindowDim d;
  d.in = in;
  d.window = ch.edge == 1 ? in : 1 + ch.window % in;
  d.offset = ch.edge == 2 ? in - d.window : ch.offset % (in - d.window + 1);
  d.at_end = ch.edge == 2;
  const bool negative = op.negative_strides && ch.negative;
  int64_t magnitude = 1 + ch.stride % d.window;
  if (ch.stride_kind == 1) magnitude = d.window + ch.stride % 4;
  const uint32_t max_count = 1 + static_cast<uint32_t>((d.window - 1) / magnitude);
  d.count = ch.edge == 1 ? max_count : 1 + ch.count % max_count;
  d.stride = negative ? -magnitude : magnitude;
  // A dimension that reads one element reads it whatever the stride: one at a 32-bit edge.
  if (ch.stride_kind == 2) d.stride = op.edge_stride(ch.stride, negative), d.count = 1;
  return d;
}

std::vector<WindowDim> ordinary_dims(const WindowOperator& op, const std::vector<WindowChoice>& choices,
                                     const SizeBudget& budget) {
  std::vector<uint32_t> raw_sizes;
  for (const WindowChoice& ch : choices) raw_sizes.push_back(ch.in);
  const Sizes in = budgeted_sizes(raw_sizes, budget);
  std::vector<WindowDim> dims;
  for (size_t i = 0; i < choices.size(); ++i) dims.push_back(ordinary_dim(op, choices[i], in[i]));
  return dims;
}

// A large case: the output first (shape_near_power), then each dimension's window around it. Reads
// are dense (stride 1) but for one dimension that may take every second element (a kernel of its
// own in vector code) and, in SLICE1, reversed ones. Offsets and slack go to the two largest
// dimensions only, so that the input stays within a few times the output.
std::vector<WindowDim> large_dims(const WindowOperator& op, const std::vector<WindowChoice>& choices,
                                  const Sizes& out) {
  const size_t rank = choices.size();
  std::vector<size_t> by_size(rank);
  std::iota(by_size.begin(), by_size.end(), size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return out[a] > out[b]; });
  std::vector<WindowDim> dims(rank);
  bool doubled = false;
  for (size_t i = 0; i < rank; ++i) {
    const WindowChoice& ch = choices[i];
    const bool extras = rank < 2 || i == by_size[0] || i == by_size[1];
    WindowDim& d = dims[i];
    d.count = out[i];
    int64_t magnitude = 1;
    if (ch.stride_kind == 1 && !doubled && d.count >= 2) magnitude = 2, doubled = true;
    d.stride = op.negative_strides && ch.negative ? -magnitude : magnitude;
    const uint32_t slack = extras ? ch.window % 3 : 0;
    d.window = span_of(d) + (op.negative_strides ? slack : 0);
    d.offset = extras ? ch.offset % 3 : 0;
    d.in = d.offset + d.window + (extras ? ch.in % 2 : 0);
    d.at_end = ch.edge == 2;
    if (d.at_end) d.offset = d.in - d.window;
  }
  return dims;
}

// A sparse case: one dimension of an input extent at an integer width's edge, read at one to four
// places, with the offset or the stride at an edge too where they fit; the others ordinary, within
// a budget of four elements.
std::vector<WindowDim> sparse_dims(const WindowOperator& op, const std::vector<WindowChoice>& choices,
                                   const SizeBudget& budget, const Magnitude& m) {
  std::vector<WindowDim> dims = ordinary_dims(op, choices, SizeBudget{4, budget.order, budget.spread});
  const size_t i = m.split % choices.size();
  const WindowChoice& ch = choices[i];
  WindowDim& d = dims[i];
  d.in = static_cast<uint32_t>(sparse_extent(m));
  d.count = 1 + ch.count % 4;
  if (m.edge != 0) {
    // A width-edge case: every read of this dimension past 2^edge.
    d.offset = static_cast<uint32_t>(past_edge(m.edge, d.in, ch.offset));
  } else {
    switch (ch.edge) {
      case 0: d.offset = static_cast<uint32_t>(width_edge(ch.offset, d.in)); break;
      case 1: d.offset = 0; break;
      default: d.offset = d.in - 1 - static_cast<uint32_t>(ch.offset % std::min<uint64_t>(d.in, 4));
    }
  }
  const uint64_t room = d.in - d.offset;  // elements from the offset to the end
  if (room < d.count) d.count = static_cast<uint32_t>(room);
  uint64_t magnitude = 1;
  if (d.count >= 2) {
    const uint64_t most = (room - 1) / (d.count - 1);
    // The farthest reach, a stride at an integer width's edge, or a small one.
    magnitude = ch.stride_kind == 0 ? most : ch.stride_kind == 1 ? width_edge(ch.stride, most + 1) : 1;
    magnitude = std::clamp<uint64_t>(magnitude, 1, most);
  }
  const bool negative = op.negative_strides && ch.negative;
  d.stride = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  d.window = span_of(d);
  d.at_end = false;
  return dims;
}

// A huge case: `elements` output elements, most of them in one dimension (the innermost, or
// another) and 2, 4 or 8 rows of it, every window dense.
std::vector<WindowDim> huge_dims(const WindowOperator& op, const std::vector<WindowChoice>& choices,
                                 const Magnitude& m, uint64_t elements) {
  const size_t rank = choices.size();
  Sizes out(rank, 1);
  const size_t main = m.split % 2 == 0 ? rank - 1 : (m.split / 2) % rank;
  uint64_t rest = elements;
  if (rank >= 2) {
    const size_t other = (main + 1 + (m.split / 16) % (rank - 1)) % rank;
    out[other] = 2u << ((m.split / 64) % 3);
    rest = std::max<uint64_t>(1, rest / out[other]);
  }
  out[main] = static_cast<uint32_t>(rest);
  std::vector<WindowChoice> dense = choices;
  for (WindowChoice& ch : dense) ch.stride_kind = ch.stride_kind == 1 ? 1 : 0;
  return large_dims(op, dense, out);
}

// The case's descriptor (no data yet). A huge case's input binds its largest dimension alone (the
// others broadcast), so that its output can pass the cache within what a case may cost while its
// rows are read from memory, contiguous. A sparse case's long dimension (`real`) is never
// broadcast: its offsets and strides past a width's edge must read other elements than the ones a
// narrow field would.
Case describe_dims(const CaseSpec& spec, const WindowOperator& op, DataType type,
                   const std::vector<WindowDim>& dims, const LayoutSpec& in_layout,
                   const LayoutSpec& out_layout, bool huge = false, std::optional<size_t> real = {}) {
  Sizes in_sizes, out_sizes;
  for (const WindowDim& d : dims) in_sizes.push_back(d.in), out_sizes.push_back(d.count);
  TensorDesc input = realize_layout(type, in_sizes, in_layout, true);
  if (real && input.strides && (*input.strides)[*real] == 0) input = realize_layout(type, in_sizes, {}, true);
  if (huge)
    input = broadcast_except(
        input, static_cast<size_t>(std::max_element(in_sizes.begin(), in_sizes.end()) - in_sizes.begin()));
  const TensorDesc output = realize_layout(type, out_sizes, out_layout, false);
  return new_case(spec, op.describe(dims, input, output));
}

void fill_input(Case& c, const FillSpec& fill) {
  const TensorDesc& input = *tensor(c.op, Role::INPUT);
  c.data.input = fill_movement(input.type, element_count(input.sizes).value_or(0), fill);
  share_broadcast_elements(input, c.data.input);
}

Case realize(const CaseSpec& spec, const WindowOperator& op, DataType type,
             const std::vector<WindowChoice>& choices, const SizeBudget& budget, const Magnitude& m,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
  auto filled = [&](Case c) {
    fill_input(c, fill);
    return c;
  };
  switch (m.scale) {
    case Scale::Ordinary: break;
    case Scale::Large:
      return filled(describe_dims(
          spec, op, type,
          large_dims(op, choices,
                     shape_near_power(m, large_exponent(m), static_cast<uint32_t>(choices.size()))),
          in_layout, out_layout));
    case Scale::Sparse:
      return filled(describe_dims(spec, op, type, sparse_dims(op, choices, budget, m), in_layout, out_layout,
                                  false, m.split % choices.size()));
    case Scale::Huge:
      return filled(huge_case((huge_elements(type) >> m.halvings) - m.nudge % 61, [&](uint64_t elements) {
        return describe_dims(spec, op, type, huge_dims(op, choices, m, elements), in_layout, out_layout,
                             !spec.packed);
      }));
  }
  return filled(describe_dims(spec, op, type, ordinary_dims(op, choices, budget), in_layout, out_layout));
}

}  // namespace

Case huge_case(uint64_t elements, const std::function<Case(uint64_t elements)>& describe) {
  // What a case may cost by default (runner.h), less a margin for what the estimate leaves out.
  constexpr uint64_t kLimit = kDefaultMaxCaseBytes / 16 * 15;
  // The estimate with the data the case will hold (its descriptors have none yet).
  auto cost_of = [](const Case& c) {
    uint64_t cost = case_footprint(c, CaseClass::Valid).total;
    for (Role r : roles(op_kind(c.op)))
      if (is_input_role(r))
        cost += element_count(tensor(c.op, r)->sizes).value_or(0) * element_size(tensor(c.op, r)->type);
    return cost;
  };
  Case c = describe(elements);
  for (int tries = 0; tries < 8; ++tries) {
    const uint64_t cost = cost_of(c);
    if (cost <= kLimit || elements <= 1) break;
    // The cost grows about linearly with the count: scaled down by the excess, and a little more.
    elements = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(elements) * static_cast<double>(kLimit) /
                                 static_cast<double>(cost) * 0.97));
    c = describe(elements);
  }
  return c;
}

rc::Gen<Case> window_case(const CaseSpec& spec, const WindowOperator& op) {
  const RankRange ranks = rank_range(spec);
  return rc::gen::apply(
      [spec, op](DataType type, const std::vector<WindowChoice>& choices, const SizeBudget& budget,
                 const Magnitude& m, const LayoutSpec& in_layout, const LayoutSpec& out_layout,
                 const FillSpec& fill) {
        return realize(spec, op, type, choices, budget, m, in_layout, out_layout, fill);
      },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      ranked(ranks, window_choice_gen()), budget_gen(), magnitude_gen(spec),
      layout_gen(true, spec.allow_broadcast_inputs, spec.layout_salt, spec.packed),
      layout_gen(false, true, spec.layout_salt, spec.packed), fill_gen(spec.mode, spec.data_salt));
}

}  // namespace dmlcert::props
