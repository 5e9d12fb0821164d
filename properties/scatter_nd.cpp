// Valid SCATTER_ND cases. Per the team's reading of the seed (SCATTERND.TUPLE_SIZE), the tuple
// size k ranges over 1..Input.DimensionCount, so k may exceed InputDimensionCount: then the
// meaningful input rank is m_count = max(InputDimensionCount, k), the tuple indexes input dims
// [rank-m_count, rank-m_count+k) and the block is input dims [rank-m_count+k, rank). Tuples are unique
// (duplicates are class U, SCATTERND.DUPLICATE) and in range, negative where legal (SCATTERND.INDEX_RANGE).
#include <algorithm>
#include <bit>
#include <numeric>

#include "build.h"

namespace dmlcert::props {
namespace {

struct ScatterDim {
  uint32_t in = 0, indices = 0;
};
struct ScatterShape {
  uint32_t input_count = 0, indices_count = 0, tuple = 0;  // raw choices
};
struct ScatterData {
  FillSpec input, updates;
  uint32_t index_seed = 0;
  bool negative = false;
};

rc::Gen<ScatterDim> scatter_dim_gen() {
  return rc::gen::construct<ScatterDim>(raw_size(), raw_size());
}
rc::Gen<ScatterShape> scatter_shape_gen() {
  return rc::gen::construct<ScatterShape>(raw(), raw(), raw());
}
rc::Gen<ScatterData> scatter_data_gen(const CaseSpec& spec) {
  return rc::gen::construct<ScatterData>(
      fill_gen(spec.mode, spec.data_salt), fill_gen(spec.mode, spec.data_salt), raw(),
      spec.allow_negative_indices ? rc::gen::arbitrary<bool>() : rc::gen::just(false));
}

struct Layouts {
  LayoutSpec input, indices, updates, output;
};
rc::Gen<Layouts> layouts_gen(bool broadcast, uint64_t salt, bool packed) {
  // A broadcast indices layout would repeat tuples (SCATTERND.DUPLICATE): indices never broadcast.
  return rc::gen::construct<Layouts>(
      layout_gen(true, broadcast, salt, packed), layout_gen(true, false, salt, packed),
      layout_gen(true, broadcast, salt, packed), layout_gen(false, true, salt, packed));
}

// The meaningful input sizes (the last `count` input dimensions) at the case's scale.
Sizes meaningful_sizes(const std::vector<uint32_t>& raw_in, const SizeBudget& budget, const Magnitude& m,
                       uint64_t huge) {
  const uint32_t count = static_cast<uint32_t>(raw_in.size());
  switch (m.scale) {
    case Scale::Ordinary: break;
    case Scale::Large: return shape_near_power(m, large_exponent(m), count);
    case Scale::Sparse: return budgeted_sizes(raw_in, SizeBudget{4, budget.order, budget.spread});
    case Scale::Huge: {
      // Most elements in one dimension, and 2, 4 or 8 rows of it where there is another.
      Sizes sizes(count, 1);
      const uint32_t main = m.split % 2 == 0 ? count - 1 : (m.split / 2) % count;
      uint64_t rest = huge;
      if (count >= 2) {
        const uint32_t other = (main + 1 + (m.split / 16) % (count - 1)) % count;
        sizes[other] = 2u << ((m.split / 64) % 3);
        rest = std::max<uint64_t>(1, rest / sizes[other]);
      }
      sizes[main] = static_cast<uint32_t>(std::min<uint64_t>(rest, UINT32_MAX));
      return sizes;
    }
  }
  return budgeted_sizes(raw_in, budget);
}

// The grid of index tuples: at most `capacity` (so that tuples can be unique); large cases near a
// power of two as large as the capacity allows.
Sizes tuple_grid(const std::vector<uint32_t>& raw_grid, const SizeBudget& budget, const Magnitude& m,
                 uint64_t capacity) {
  const uint32_t rank = static_cast<uint32_t>(raw_grid.size());
  if (m.scale == Scale::Large && rank > 0) {
    const uint32_t most = static_cast<uint32_t>(std::bit_width(capacity) - 1);
    Magnitude grid = m;
    grid.split = m.split / 7;
    const Sizes sizes = shape_near_power(grid, std::min(most, large_exponent(m)), rank);
    if (element_count(sizes).value_or(UINT64_MAX) <= capacity) return sizes;
  }
  const uint64_t elements = m.scale == Scale::Ordinary || m.scale == Scale::Large ? budget.elements : 4;
  return budgeted_sizes(raw_grid, SizeBudget{std::min(capacity, elements), budget.order, budget.spread});
}

Case realize(const CaseSpec& spec, DataType type, DataType index_type, const std::vector<ScatterDim>& dims,
             const ScatterShape& shape, const SizeBudget& budget, const Magnitude& m, const Layouts& layouts,
             const ScatterData& data, uint64_t huge, bool with_data = true) {
  const uint32_t r = static_cast<uint32_t>(dims.size());
  ScatterNdDesc d;
  // Half the cases use every dimension (so that at high ranks the outer ones are sized too), the
  // others have leading ones that the operator strips.
  d.input_dimension_count = shape.input_count % 2 == 0 ? r : 1 + (shape.input_count / 2) % r;
  const uint32_t k = 1 + shape.tuple % r;
  const uint32_t m_count = std::max(d.input_dimension_count, k);
  // The expected updates shape has (IndicesDimensionCount-1) + (m_count-k) entries; it must fit in r.
  d.indices_dimension_count = 1 + shape.indices_count % std::min(r, r - (m_count - k) + 1);

  // The meaningful input dimensions share the budget; the leading ones are 1.
  Sizes in_sizes(r, 1);
  std::vector<uint32_t> raw_in;
  for (uint32_t i = r - d.input_dimension_count; i < r; ++i) raw_in.push_back(dims[i].in);
  const Sizes meaningful_in = meaningful_sizes(raw_in, budget, m, huge);
  std::copy(meaningful_in.begin(), meaningful_in.end(),
            in_sizes.end() - static_cast<ptrdiff_t>(raw_in.size()));
  const uint32_t tuple_begin = r - m_count, block_begin = r - m_count + k;
  // A sparse case: one indexed dimension at an integer width's edge, the others within four elements.
  if (m.scale == Scale::Sparse) {
    const uint32_t first = std::max(tuple_begin, r - d.input_dimension_count);
    in_sizes[first + m.split % (block_begin - first)] = static_cast<uint32_t>(sparse_extent(m));
  }
  uint64_t capacity = 1;
  for (uint32_t i = tuple_begin; i < block_begin; ++i) capacity *= in_sizes[i];

  // Indices: leading 1s, then the tuple grid (product <= capacity, so tuples can be unique), then k.
  Sizes idx_sizes(r, 1);
  std::vector<uint32_t> raw_grid;
  for (uint32_t j = 0; j + 1 < d.indices_dimension_count; ++j)
    raw_grid.push_back(dims[r - d.indices_dimension_count + j].indices);
  const Sizes grid = tuple_grid(raw_grid, budget, m, capacity);
  std::copy(grid.begin(), grid.end(), idx_sizes.begin() + (r - d.indices_dimension_count));
  idx_sizes[r - 1] = k;

  Sizes meaningful = grid;
  for (uint32_t i = block_begin; i < r; ++i) meaningful.push_back(in_sizes[i]);
  Sizes upd_sizes(r - meaningful.size(), 1);
  upd_sizes.insert(upd_sizes.end(), meaningful.begin(), meaningful.end());

  d.input = realize_layout(type, in_sizes, layouts.input, true);
  // A huge case's input binds its largest dimension alone (as windows.cpp's): the output passes the
  // cache within what a case may cost, and the copy into it reads rows from memory.
  if (m.scale == Scale::Huge && !spec.packed)
    d.input = broadcast_except(
        d.input, static_cast<size_t>(std::max_element(in_sizes.begin(), in_sizes.end()) - in_sizes.begin()));
  d.indices = realize_layout(index_type, idx_sizes, layouts.indices, true);
  d.updates = realize_layout(type, upd_sizes, layouts.updates, true);
  d.output = realize_layout(type, in_sizes, layouts.output, false);
  Case c = new_case(spec, d);
  if (!with_data) return c;

  // Unique tuples: the first T addresses of a shuffled [0, capacity).
  const uint64_t tuples = element_count(grid).value_or(1);
  Prng prng(mix_seed(data.index_seed ^ spec.data_salt, 0x5ca7u));
  std::vector<uint64_t> addresses(capacity);
  std::iota(addresses.begin(), addresses.end(), uint64_t{0});
  for (uint64_t i = 0; i < tuples && i + 1 < capacity; ++i)
    std::swap(addresses[i], addresses[i + prng.below(capacity - i)]);
  // Half the cases scatter to the corners too: the tuple of every d-1 (or -1) and of every 0 (or -d).
  // A width-edge case (CaseSpec::edge) always has the first: its component along the long
  // dimension is past 2^edge.
  if (spec.edge != 0 && tuples >= 1 && capacity >= 2) {
    std::swap(addresses[0], *std::find(addresses.begin(), addresses.end(), capacity - 1));
  } else if (tuples >= 2 && prng.coin()) {
    auto corner = [&](uint64_t slot, uint64_t address) {
      std::swap(addresses[slot], *std::find(addresses.begin(), addresses.end(), address));
    };
    corner(0, capacity - 1);
    corner(1, 0);
  }
  const bool negative_ok = data.negative && negative_indices_legal(spec.level, index_type);
  std::vector<int64_t> values;
  for (uint64_t t = 0; t < tuples; ++t) {
    uint64_t a = addresses[t];
    std::vector<int64_t> tuple(k);
    for (uint32_t j = k; j-- > 0;) {
      const uint32_t dsize = in_sizes[tuple_begin + j];
      tuple[j] = maybe_negative(static_cast<int64_t>(a % dsize), dsize, negative_ok && prng.coin());
      a /= dsize;
    }
    values.insert(values.end(), tuple.begin(), tuple.end());
  }

  c.data.input = fill_movement(type, element_count(in_sizes).value_or(0), data.input);
  share_broadcast_elements(d.input, c.data.input);
  c.data.updates = fill_movement(type, element_count(upd_sizes).value_or(0), data.updates);
  share_broadcast_elements(d.updates, c.data.updates);
  c.data.indices = encode_indices(index_type, values);
  return c;
}

rc::Gen<Case> valid(const CaseSpec& spec) {
  const RankRange ranks = rank_range(spec);
  return rc::gen::apply(
      [spec](DataType type, DataType index_type, const std::vector<ScatterDim>& dims,
             const ScatterShape& shape, const SizeBudget& budget, const Magnitude& m, const Layouts& layouts,
             const ScatterData& data) {
        if (m.scale != Scale::Huge)
          return realize(spec, type, index_type, dims, shape, budget, m, layouts, data, 0);
        // The descriptors first, scaled to what a case may cost; the data once, for the one kept.
        const Case sized =
            huge_case((huge_elements(type) >> m.halvings) - m.nudge % 61, [&](uint64_t elements) {
              return realize(spec, type, index_type, dims, shape, budget, m, layouts, data, elements, false);
            });
        return realize(spec, type, index_type, dims, shape, budget, m, layouts, data,
                       element_count(tensor(sized.op, Role::OUTPUT)->sizes).value_or(1));
      },
      type_gen(spec.data_type, common_types(spec, {Role::INPUT, Role::UPDATES, Role::OUTPUT})),
      type_gen(spec.index_type, role_types(spec, Role::INDICES)), ranked(ranks, scatter_dim_gen()),
      scatter_shape_gen(), budget_gen(), magnitude_gen(spec),
      layouts_gen(spec.allow_broadcast_inputs, spec.layout_salt, spec.packed), scatter_data_gen(spec));
}

}  // namespace

OperatorGenerators scatter_nd_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"SCATTERND.DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) { prepend_unit(*tensor(c.op, pick_role(c, choices))); }},
      {"SCATTERND.DTYPE_MATCH", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         const Role role = choices.coin() ? Role::OUTPUT : Role::UPDATES;
         retype(c, role, other_type(c, role, tensor(c.op, Role::INPUT)->type, choices), choices);
       }},
      {"SCATTERND.INPUT_DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         const uint64_t how = choices.below(3);
         d.input_dimension_count = how == 0   ? d.input.rank() + 1
                                   : how == 1 ? 0
                                              : past_a_width(d.input_dimension_count, choices);
       }},
      {"SCATTERND.INDICES_DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         const uint64_t how = choices.below(3);
         d.indices_dimension_count = how == 0   ? d.indices.rank() + 1
                                     : how == 1 ? 0
                                                : past_a_width(d.indices_dimension_count, choices);
       }},
      {"SCATTERND.LEADING_DIMS", nullptr, [](CaseSpec& s) { s.min_rank = 2; }, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         const uint32_t r = d.input.rank();
         // Strip dimension 0 and make it 2 wide.
         if (!choices.coin()) {
           d.input_dimension_count = std::min(d.input_dimension_count, r - 1);
           d.input.sizes[0] = d.output.sizes[0] = std::max(d.input.sizes[0], 2u);
           refresh_total_bytes(d.input), refresh_total_bytes(d.output);
           refill_input(c, Role::INPUT, choices.next());
         } else {
           d.indices_dimension_count = std::min(d.indices_dimension_count, r - 1);
           d.indices.sizes[0] = std::max(d.indices.sizes[0], 2u);
           refresh_total_bytes(d.indices);
           refill_input(c, Role::INDICES, choices.next());
         }
       }},
      {"SCATTERND.TUPLE_SIZE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         // One past the rank, or the tuple size 2^8 on (the same in a field of 8 bits).
         const uint32_t k = d.indices.sizes.back();
         resize(c, Role::INDICES, d.indices.rank() - 1, choices.coin() ? k + (1u << 8) : d.input.rank() + 1,
                choices);
       }},
      {"SCATTERND.UPDATES_SHAPE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         const TensorDesc& u = *tensor(c.op, Role::UPDATES);
         const uint32_t dim = pick_dim(u, choices);
         resize(c, Role::UPDATES, dim, grown_size(u, dim, kMostGrownInput, choices), choices);
       }},
      {"SCATTERND.OUTPUT_SHAPE", nullptr, nullptr, nullptr, grow_output},
  };
  g.unspecified = {
      {"SCATTERND.INDEX_RANGE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         const ScatterGeometry geometry = *d.geometry();
         auto values = decode_indices(d.indices.type, c.data.indices);
         const size_t pos = choices.below(values.size());
         const int64_t extent = d.input.sizes[geometry.first_indexed + pos % geometry.k];
         const bool below = is_signed_integer(d.indices.type) && choices.coin();
         values[pos] = below ? -extent - 1 - static_cast<int64_t>(choices.below(3))
                             : extent + static_cast<int64_t>(choices.below(3));
         if (below && c.level < FeatureLevel::L3_0)
           values[pos] = -1;  // before 3_0 every negative value is out
         c.data.indices = encode_indices(d.indices.type, values);
       }},
      {"SCATTERND.DUPLICATE", nullptr, nullptr,
       [](const Case& c) {
         const auto& d = std::get<ScatterNdDesc>(c.op);
         return element_count(d.indices.sizes).value_or(0) / d.indices.sizes.back() >= 2;
       },
       [](Case& c, Choices& choices) {
         auto& d = as<ScatterNdDesc>(c);
         const uint32_t k = d.indices.sizes.back();
         auto values = decode_indices(d.indices.type, c.data.indices);
         const size_t tuples = values.size() / k;
         const size_t from = choices.below(tuples);
         size_t to = choices.below(tuples - 1);
         if (to >= from) ++to;
         std::copy_n(values.begin() + static_cast<ptrdiff_t>(from * k), k,
                     values.begin() + static_cast<ptrdiff_t>(to * k));
         c.data.indices = encode_indices(d.indices.type, values);
       }},
  };
  return g;
}

}  // namespace dmlcert::props
