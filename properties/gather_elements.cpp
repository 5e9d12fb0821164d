// Valid GATHER_ELEMENTS cases: output[c] = input[c with c[axis] replaced by index[c]]. Indices
// match the input off the axis (GATHERELEMENTS.INDICES_SHAPE), may be longer or shorter along it,
// and hold values in range, negative where legal (GATHERELEMENTS.INDEX_RANGE), a quarter of them at
// the edges of the range (0 and d-1, or -d and -1), an eighth at an integer width's edge inside it.
// Sizes across magnitudes (magnitude.cpp) reach axes of 2^17 elements and outputs of tens of MiB.
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

// The input and indices sizes (the output takes the indices').
struct GatherShape {
  Sizes input, indices;
};

GatherShape ordinary_shape(const std::vector<GatherDim>& dims, uint32_t axis, const SizeBudget& budget) {
  std::vector<uint32_t> raw_sizes;
  for (const GatherDim& dim : dims) raw_sizes.push_back(dim.in);
  GatherShape s{budgeted_sizes(raw_sizes, budget), {}};
  s.indices = s.input;
  uint64_t along = std::max<uint64_t>(
      1, budget.elements / std::max<uint64_t>(1, element_count(s.input).value_or(1) / s.input[axis]));
  s.indices[axis] = budgeted_size(dims[axis].indices, along);
  return s;
}

// A large case: the indices' count near a power of two (shape_near_power); along the axis the
// input holds as many elements as the indices, one more, twice as many, or fewer.
GatherShape large_shape(const std::vector<GatherDim>& dims, uint32_t axis, const Magnitude& m) {
  GatherShape s;
  s.indices = shape_near_power(m, large_exponent(m), static_cast<uint32_t>(dims.size()));
  s.input = s.indices;
  const uint32_t along = s.indices[axis];
  switch (dims[axis].in % 4) {
    case 0: break;
    case 1: s.input[axis] = along + 1; break;
    case 2: s.input[axis] = along <= UINT32_MAX / 2 ? 2 * along : along; break;
    default: s.input[axis] = 1 + dims[axis].indices % along;
  }
  return s;
}

// A sparse case: an axis at an integer width's edge, gathered from one to four times per line.
GatherShape sparse_shape(const std::vector<GatherDim>& dims, uint32_t axis, const SizeBudget& budget,
                         const Magnitude& m) {
  GatherShape s = ordinary_shape(dims, axis, SizeBudget{4, budget.order, budget.spread});
  s.input[axis] = static_cast<uint32_t>(sparse_extent(m));
  s.indices[axis] = 1 + dims[axis].indices % 4;
  return s;
}

// A huge case: `elements` indices (and outputs), most of them in one dimension.
GatherShape huge_shape(const std::vector<GatherDim>& dims, uint32_t axis, const Magnitude& m,
                       uint64_t elements) {
  const uint32_t r = static_cast<uint32_t>(dims.size());
  GatherShape s{Sizes(r, 1), Sizes(r, 1)};
  const uint32_t main = m.split % 2 == 0 ? r - 1 : (m.split / 2) % r;
  uint64_t rest = elements;
  if (r >= 2) {
    const uint32_t other = (main + 1 + (m.split / 16) % (r - 1)) % r;
    s.indices[other] = 2u << ((m.split / 64) % 3);
    rest = std::max<uint64_t>(1, rest / s.indices[other]);
  }
  s.indices[main] = static_cast<uint32_t>(std::min<uint64_t>(rest, UINT32_MAX));
  s.input = s.indices;
  s.input[axis] = 1 + dims[axis].in % std::max<uint32_t>(1, std::min<uint32_t>(s.indices[axis], 64));
  return s;
}

Case describe(const CaseSpec& spec, DataType type, DataType index_type, const GatherShape& shape,
              uint32_t axis, const Layouts& layouts) {
  GatherElementsDesc d;
  d.axis = axis;
  d.input = realize_layout(type, shape.input, layouts.input, true);
  d.indices = realize_layout(index_type, shape.indices, layouts.indices, true);
  d.output = realize_layout(type, shape.indices, layouts.output, false);
  return new_case(spec, d);
}

// Index values in range, negative where legal: a quarter of them at the edges of the range (0 and
// d-1), an eighth next to an integer width's edge within it (2^8, 2^15, 2^16, ...).
void fill(const CaseSpec& spec, Case& c, const GatherData& data) {
  const auto& d = std::get<GatherElementsDesc>(c.op);
  c.data.input = fill_movement(d.input.type, element_count(d.input.sizes).value_or(0), data.input);
  share_broadcast_elements(d.input, c.data.input);
  const uint64_t extent = d.input.sizes[d.axis];
  const bool negative_ok = data.negative && negative_indices_legal(spec.level, d.indices.type);
  Prng prng(mix_seed(data.index_seed ^ spec.data_salt, 0x6a7eu));
  std::vector<int64_t> values(element_count(d.indices.sizes).value_or(0));
  // A width-edge case (CaseSpec::edge): every other index past 2^edge, so that each line of
  // the output has one.
  const bool past = spec.edge != 0 && extent > (uint64_t{1} << spec.edge);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t& v = values[i];
    const uint64_t pick = prng.below(8);
    const uint64_t at = past && i % 2 == 0 ? past_edge(spec.edge, extent, prng.next())
                        : pick < 2         ? (prng.coin() ? 0 : extent - 1)
                        : pick == 2        ? width_edge(static_cast<uint32_t>(prng.next()), extent)
                                           : prng.below(extent);
    v = maybe_negative(static_cast<int64_t>(at), static_cast<int64_t>(extent), negative_ok && prng.coin());
  }
  c.data.indices = encode_indices(d.indices.type, values);
  share_broadcast_elements(d.indices, c.data.indices);
}

Case realize(const CaseSpec& spec, DataType type, DataType index_type, const std::vector<GatherDim>& dims,
             uint32_t axis_choice, const SizeBudget& budget, const Magnitude& m, const Layouts& layouts,
             const GatherData& data) {
  // A large packed case gathers along the innermost dimension, where its count lies, half the time.
  const uint32_t rank = static_cast<uint32_t>(dims.size());
  const uint32_t axis =
      spec.packed && m.scale == Scale::Large && axis_choice % 2 == 0 ? rank - 1 : axis_choice % rank;
  Case c;
  switch (m.scale) {
    case Scale::Ordinary:
      c = describe(spec, type, index_type, ordinary_shape(dims, axis, budget), axis, layouts);
      break;
    case Scale::Large: c = describe(spec, type, index_type, large_shape(dims, axis, m), axis, layouts); break;
    case Scale::Sparse:
      c = describe(spec, type, index_type, sparse_shape(dims, axis, budget, m), axis, layouts);
      break;
    case Scale::Huge:
      c = huge_case((huge_elements(type) >> m.halvings) - m.nudge % 61, [&](uint64_t elements) {
        return describe(spec, type, index_type, huge_shape(dims, axis, m, elements), axis, layouts);
      });
      break;
  }
  fill(spec, c, data);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const RankRange ranks = rank_range(spec);
  const bool broadcast = spec.allow_broadcast_inputs;
  return rc::gen::apply(
      [spec](DataType type, DataType index_type, const std::vector<GatherDim>& dims, uint32_t axis,
             const SizeBudget& budget, const Magnitude& m, const Layouts& layouts, const GatherData& data) {
        return realize(spec, type, index_type, dims, axis, budget, m, layouts, data);
      },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::OUTPUT})),
      type_gen(spec.index_type, role_types(spec, Role::INDICES)), ranked(ranks, gather_dim_gen()), raw(8),
      budget_gen(), magnitude_gen(spec),
      rc::gen::construct<Layouts>(layout_gen(true, broadcast, spec.layout_salt, spec.packed),
                                  layout_gen(true, broadcast, spec.layout_salt, spec.packed),
                                  layout_gen(false, true, spec.layout_salt, spec.packed)),
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
         d.axis = choices.coin() ? past_a_width(d.axis, choices)
                                 : d.input.rank() + static_cast<uint32_t>(choices.below(3));
       }},
      {"GATHERELEMENTS.INDICES_SHAPE", nullptr, [](CaseSpec& s) { s.min_rank = 2; }, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<GatherElementsDesc>(c);
         uint32_t i = static_cast<uint32_t>(choices.below(d.input.rank() - 1));
         if (i >= d.axis) ++i;
         // Shorter than the input where it can be (a backend that checks only that the indices fit
         // inside the input accepts it), else longer, by one or past a width (grown_size). The
         // output follows the indices, so that only INDICES_SHAPE breaks.
         const uint32_t size = d.indices.sizes[i] >= 2 && choices.coin()
                                   ? d.indices.sizes[i] - 1
                                   : grown_size(d.indices, i, kMostGrownInput, choices);
         resize(c, Role::INDICES, i, size, choices);
         resize(c, Role::OUTPUT, i, size, choices);
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
