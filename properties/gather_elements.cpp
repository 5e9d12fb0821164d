// Valid GATHER_ELEMENTS cases: output[c] = input[c with c[axis] replaced by index[c]]. Indices
// match the input off the axis (GATHERELEMENTS.INDICES_SHAPE), may be longer or shorter along it,
// and hold values in range, negative where legal (GATHERELEMENTS.INDEX_RANGE), a quarter of them at
// the edges of the range: 0 and d-1, or -d and -1.
#include "build.h"

namespace dmlcert::props {
namespace {

struct GatherDim {
  uint32_t in = 0, indices = 0;
};
struct GatherData {
  FillSpec input;
  uint32_t index_seed = 0;
  bool negative = false;
};
struct Layouts {
  LayoutSpec input, indices, output;
};

rc::Gen<GatherDim> gather_dim_gen() {
  return rc::gen::construct<GatherDim>(raw_size(), raw_size());
}

Case realize(const CaseSpec& spec, DataType type, DataType index_type, const std::vector<GatherDim>& dims,
             uint32_t axis_choice, const SizeBudget& budget, const Layouts& layouts, const GatherData& data) {
  const uint32_t r = static_cast<uint32_t>(dims.size());
  GatherElementsDesc d;
  d.axis = axis_choice % r;
  std::vector<uint32_t> raw_sizes;
  for (const GatherDim& dim : dims) raw_sizes.push_back(dim.in);
  const Sizes in_sizes = budgeted_sizes(raw_sizes, budget);
  Sizes idx_sizes = in_sizes;
  uint64_t along = std::max<uint64_t>(
      1, budget.elements / std::max<uint64_t>(1, element_count(in_sizes).value_or(1) / in_sizes[d.axis]));
  idx_sizes[d.axis] = budgeted_size(dims[d.axis].indices, along);

  d.input = realize_layout(type, in_sizes, layouts.input, true);
  d.indices = realize_layout(index_type, idx_sizes, layouts.indices, true);
  d.output = realize_layout(type, idx_sizes, layouts.output, false);
  Case c = new_case(spec, d);
  c.data.input = fill_movement(type, element_count(in_sizes).value_or(0), data.input);
  share_broadcast_elements(d.input, c.data.input);

  const int64_t extent = in_sizes[d.axis];
  const bool negative_ok = data.negative && negative_indices_legal(spec.level, index_type);
  Prng prng(mix_seed(data.index_seed ^ spec.data_salt, 0x6a7eu));
  std::vector<int64_t> values(element_count(idx_sizes).value_or(0));
  for (int64_t& v : values) {
    const bool edge = prng.below(4) == 0;
    const uint64_t at = edge ? (prng.coin() ? 0 : static_cast<uint64_t>(extent) - 1)
                             : prng.below(static_cast<uint64_t>(extent));
    v = maybe_negative(static_cast<int64_t>(at), extent, negative_ok && prng.coin());
  }
  c.data.indices = encode_indices(index_type, values);
  share_broadcast_elements(d.indices, c.data.indices);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const RankRange ranks = rank_range(spec);
  const bool broadcast = spec.allow_broadcast_inputs;
  return rc::gen::apply(
      [spec](DataType type, DataType index_type, const std::vector<GatherDim>& dims, uint32_t axis,
             const SizeBudget& budget, const Layouts& layouts, const GatherData& data) {
        return realize(spec, type, index_type, dims, axis, budget, layouts, data);
      },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      type_gen(spec.index_type, role_types(spec, Role::INDICES)), ranked(ranks, gather_dim_gen()), raw(8),
      budget_gen(),
      rc::gen::construct<Layouts>(layout_gen(true, broadcast, spec.layout_salt),
                                  layout_gen(true, broadcast, spec.layout_salt),
                                  layout_gen(false, true, spec.layout_salt)),
      rc::gen::construct<GatherData>(
          fill_gen(spec.mode, spec.data_salt), raw(),
          spec.allow_negative_indices ? rc::gen::arbitrary<bool>() : rc::gen::just(false)));
}

}  // namespace

OperatorGenerators gather_elements_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"GATHERELEMENTS.DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         prepend_unit(*tensor(c.op, choices.coin() ? Role::OUTPUT : Role::INDICES));
       }},
      {"GATHERELEMENTS.AXIS_RANGE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<GatherElementsDesc>(c);
         d.axis = d.input.rank() + static_cast<uint32_t>(choices.below(3));
       }},
      {"GATHERELEMENTS.INDICES_SHAPE", nullptr, [](CaseSpec& s) { s.min_rank = 2; }, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<GatherElementsDesc>(c);
         uint32_t i = static_cast<uint32_t>(choices.below(d.input.rank() - 1));
         if (i >= d.axis) ++i;
         // The output follows the indices, so that only INDICES_SHAPE breaks.
         resize(c, Role::INDICES, i, d.indices.sizes[i] + 1, choices);
         resize(c, Role::OUTPUT, i, d.output.sizes[i] + 1, choices);
       }},
      {"GATHERELEMENTS.OUTPUT_SHAPE", nullptr, nullptr, nullptr, grow_output},
      {"GATHERELEMENTS.DTYPE_MATCH", nullptr, nullptr, nullptr, output_type_differs},
  };
  g.unspecified = {
      {"GATHERELEMENTS.INDEX_RANGE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<GatherElementsDesc>(c);
         auto values = decode_indices(d.indices.type, c.data.indices);
         const int64_t extent = d.input.sizes[d.axis];
         const bool below = is_signed_integer(d.indices.type) && choices.coin();
         int64_t bad = below ? -extent - 1 - static_cast<int64_t>(choices.below(3))
                             : extent + static_cast<int64_t>(choices.below(3));
         if (below && c.level < FeatureLevel::L3_0) bad = -1;  // before 3_0 every negative value is out
         // Element 0 always keeps its value under 0-stride sharing.
         values[0] = bad;
         if (values.size() > 1 && choices.coin()) values[choices.below(values.size())] = bad;
         c.data.indices = encode_indices(d.indices.type, values);
         share_broadcast_elements(d.indices, c.data.indices);
       }},
  };
  return g;
}

}  // namespace dmlcert::props
