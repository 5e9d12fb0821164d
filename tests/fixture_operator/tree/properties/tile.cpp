// Valid TILE cases: output[c] = input[c mod Input.Sizes] with Output.Sizes = Input.Sizes * Repeats
// (TILE.OUTPUT_SHAPE). Repeats are 1 to 4 per dimension (1 where a shrink goes); a large case tiles
// an input near a power of two along one dimension, a huge one repeats an ordinary input along one
// dimension until the output is tens of MiB.
#include "build.h"

namespace dmlcert::props {
namespace {

struct TileDim {
  uint32_t in = 0, repeat = 0;
};
struct Layouts {
  LayoutSpec input, output;
};

rc::Gen<TileDim> tile_dim_gen() {
  return rc::gen::construct<TileDim>(raw_size(), raw(4));
}

struct TileShape {
  Sizes input;
  std::vector<uint32_t> repeats;
};

TileShape ordinary_shape(const std::vector<TileDim>& dims, const SizeBudget& budget) {
  std::vector<uint32_t> raw_sizes;
  TileShape s;
  for (const TileDim& dim : dims) {
    raw_sizes.push_back(dim.in);
    s.repeats.push_back(1 + dim.repeat % 4);
  }
  s.input = budgeted_sizes(raw_sizes, budget);
  return s;
}

// An input near a power of two, repeated along one dimension only.
TileShape large_shape(const std::vector<TileDim>& dims, const Magnitude& m) {
  const auto r = static_cast<uint32_t>(dims.size());
  TileShape s{shape_near_power(m, large_exponent(m), r), std::vector<uint32_t>(r, 1)};
  const uint32_t along = (m.split / 2) % r;
  s.repeats[along] = 1 + dims[along].repeat % 4;
  return s;
}

// An ordinary input repeated along one dimension until the output holds about `elements`.
TileShape huge_shape(const std::vector<TileDim>& dims, const SizeBudget& budget, const Magnitude& m,
                     uint64_t elements) {
  TileShape s = ordinary_shape(dims, budget);
  const auto r = static_cast<uint32_t>(dims.size());
  const uint32_t along = (m.split / 2) % r;
  std::fill(s.repeats.begin(), s.repeats.end(), 1u);
  const uint64_t in = element_count(s.input).value_or(1);
  const uint64_t most = UINT32_MAX / s.input[along];
  s.repeats[along] = static_cast<uint32_t>(std::clamp<uint64_t>(elements / in, 1, most));
  return s;
}

Case describe(const CaseSpec& spec, DataType type, const TileShape& shape, const Layouts& layouts) {
  TileDesc d;
  d.repeats = shape.repeats;
  Sizes out = shape.input;
  for (size_t i = 0; i < out.size(); ++i) out[i] *= shape.repeats[i];
  d.input = realize_layout(type, shape.input, layouts.input, true);
  d.output = realize_layout(type, out, layouts.output, false);
  return new_case(spec, d);
}

Case realize(const CaseSpec& spec, DataType type, const std::vector<TileDim>& dims, const SizeBudget& budget,
             const Magnitude& m, const Layouts& layouts, const FillSpec& fill) {
  Case c;
  switch (m.scale) {
    case Scale::Large: c = describe(spec, type, large_shape(dims, m), layouts); break;
    case Scale::Huge:
      c = huge_case(huge_elements(type) - m.nudge % 61, [&](uint64_t elements) {
        return describe(spec, type, huge_shape(dims, budget, m, elements), layouts);
      });
      break;
    // TILE reads no index, so no dimension is at an integer width's edge: sparse is ordinary.
    case Scale::Ordinary:
    case Scale::Sparse: c = describe(spec, type, ordinary_shape(dims, budget), layouts); break;
  }
  const auto& d = std::get<TileDesc>(c.op);
  c.data.input = fill_movement(d.input.type, element_count(d.input.sizes).value_or(0), fill);
  share_broadcast_elements(d.input, c.data.input);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const bool broadcast = spec.allow_broadcast_inputs;
  return rc::gen::apply(
      [spec](DataType type, const std::vector<TileDim>& dims, const SizeBudget& budget, const Magnitude& m,
             const Layouts& layouts,
             const FillSpec& fill) { return realize(spec, type, dims, budget, m, layouts, fill); },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      ranked(rank_range(spec), tile_dim_gen()), budget_gen(), magnitude_gen(spec),
      rc::gen::construct<Layouts>(layout_gen(true, broadcast, spec.layout_salt),
                                  layout_gen(false, true, spec.layout_salt)),
      fill_gen(spec.mode, spec.data_salt));
}

}  // namespace

OperatorGenerators tile_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"TILE.DIMCOUNT", nullptr, nullptr, nullptr, break_dimension_count},
      // The output keeps its shape, so that only the repeat breaks a rule (TILE.OUTPUT_SHAPE skips
      // a 0 repeat).
      {"TILE.REPEATS_NONZERO", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<TileDesc>(c);
         d.repeats[choices.below(d.repeats.size())] = 0;
       }},
      {"TILE.OUTPUT_SHAPE", nullptr, nullptr, nullptr, grow_output},
      {"TILE.DTYPE_MATCH", nullptr, nullptr, nullptr, output_type_differs},
  };
  return g;
}

}  // namespace dmlcert::props
