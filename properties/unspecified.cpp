// Class U cases: one generator per unspecified or doc/U rule. Each starts from a valid case and
// changes the descriptor or the data so that exactly that rule makes it class U; `violates`
// names the rule.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "build.h"
#include "dmlcert/reduce_groups.h"
#include "dmlcert/rules.h"

namespace dmlcert::props {
namespace {

struct UGenerator {
  std::vector<OpKind> ops;  // empty: every operator
  std::function<bool(OpKind, FeatureLevel)> applicable;
  std::function<void(CaseSpec&)> prepare;
  std::function<bool(const Case&)> base_ok;
  std::function<void(Case&, Prng&)> mutate;
};

template <class T>
T& as(Case& c) {
  return std::get<T>(c.op);
}
bool exists(OpKind op, FeatureLevel l) {
  return l >= introduced_at(op);
}

void ensure_strides(TensorDesc& t) {
  if (!t.strides) {
    const auto packed = packed_strides(t.sizes);
    t.strides = std::vector<uint32_t>(packed.begin(), packed.end());
  }
}

// SCATTER_ND geometry: where the tuple's components index the input.
struct TupleGeometry {
  uint32_t k, begin;
};
TupleGeometry tuple_geometry(const ScatterNdDesc& d) {
  const uint32_t k = d.indices.sizes.back();
  const uint32_t m = std::max(d.input_dimension_count, k);
  return {k, d.input.rank() - m};
}

std::vector<DataType> integer_types(const std::vector<DataType>& types) {
  std::vector<DataType> out;
  for (DataType t : types)
    if (!is_float(t)) out.push_back(t);
  return out;
}

void fill_with_max(Case& c) {
  TensorDesc& in = *tensor(c.op, Role::INPUT);
  const size_t es = element_size(in.type);
  for (size_t i = 0; i + es <= c.data.input.size(); i += es)
    dispatch(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!is_float_v<T>) store<T>(c.data.input.data() + i, std::numeric_limits<T>::max());
    });
}

uint64_t reduced_count(const ReduceDesc& d) {
  uint64_t n = 1;
  for (uint32_t a : axis_set(d.axes)) n *= d.input.sizes[a];
  return n;
}

const std::map<std::string_view, UGenerator>& generators() {
  static const std::map<std::string_view, UGenerator> m = [] {
    std::map<std::string_view, UGenerator> m;
    const auto any = [](OpKind op, FeatureLevel l) { return exists(op, l); };

    m["T.OUTPUT_OVERLAP"] = {{},
                             any,
                             nullptr,
                             [](const Case& c) {
                               for (uint32_t s : tensor(c.op, Role::OUTPUT)->sizes)
                                 if (s >= 2) return true;
                               return false;
                             },
                             [](Case& c, Prng& prng) {
                               TensorDesc& o = *tensor(c.op, Role::OUTPUT);
                               std::vector<uint32_t> big;
                               for (uint32_t i = 0; i < o.rank(); ++i)
                                 if (o.sizes[i] >= 2) big.push_back(i);
                               ensure_strides(o);
                               (*o.strides)[big[prng.below(big.size())]] = 0;
                               refresh_total_bytes(o);
                             }};
    m["SLICE.STRIDE_ZERO"] = {{OpKind::SLICE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                auto& d = as<SliceDesc>(c);
                                d.strides[prng.below(d.strides.size())] = 0;
                              }};
    m["REDUCE.AXES_EMPTY"] = {{OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng&) {
                                auto& d = as<ReduceDesc>(c);
                                d.axes.clear();
                                d.output.sizes = d.input.sizes;
                                d.output.strides.reset();
                                refresh_total_bytes(d.output);
                              }};
    m["REDUCE.AXES_DUPLICATE"] = {
        {OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
          auto& d = as<ReduceDesc>(c);
          const uint32_t a = d.axes[prng.below(d.axes.size())];
          d.axes.insert(d.axes.begin() + static_cast<ptrdiff_t>(prng.below(d.axes.size() + 1)), a);
        }};
    m["REDUCE.INT_OVERFLOW"] = {{OpKind::REDUCE},
                                [](OpKind op, FeatureLevel l) {
                                  if (!exists(op, l)) return false;
                                  CaseSpec s;
                                  s.level = l, s.op = op, s.function = ReduceFunction::SUM;
                                  return !integer_types(role_types(s, Role::INPUT)).empty();
                                },
                                [](CaseSpec& s) { s.function = ReduceFunction::SUM; },
                                [](const Case& c) {
                                  const auto& d = std::get<ReduceDesc>(c.op);
                                  return !is_float(d.input.type) && reduced_count(d) >= 2;
                                },
                                // Two maxima in every group already leave the type's range.
                                [](Case& c, Prng&) { fill_with_max(c); }};
    m["REDUCE.NONFINITE"] = {{OpKind::REDUCE},
                             any,
                             [](CaseSpec& s) { s.data_type = DataType::FLOAT32; },
                             nullptr,
                             [](Case& c, Prng& prng) {
                               TensorDesc& in = *tensor(c.op, Role::INPUT);
                               in.type = prng.coin() ? DataType::FLOAT32 : DataType::FLOAT16;
                               refresh_total_bytes(in);
                               auto& d = as<ReduceDesc>(c);
                               if (is_arg_function(d.function)) {
                                 // ARG* outputs keep their index type.
                               } else {
                                 d.output.type = in.type;
                                 refresh_total_bytes(d.output);
                               }
                               const uint64_t n = element_count(in.sizes).value_or(0);
                               c.data.input = fill_reduce(d.function, in.type, n, reduced_count(d),
                                                          FillSpec{DataMode::Exact, prng.next(), 3});
                               const double specials[] = {std::nan(""), INFINITY, -INFINITY};
                               const size_t es = element_size(in.type);
                               // Element 0 always keeps its value under 0-stride sharing.
                               from_double(in.type, specials[prng.below(3)], c.data.input.data());
                               for (uint64_t i = 1; i < n; ++i)
                                 if (prng.below(4) == 0)
                                   from_double(in.type, specials[prng.below(3)],
                                               c.data.input.data() + i * es);
                               share_broadcast_elements(in, c.data.input);
                             }};
    m["SCATTERND.INDEX_RANGE"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                    auto& d = as<ScatterNdDesc>(c);
                                    const auto g = tuple_geometry(d);
                                    auto values = decode_indices(d.indices.type, c.data.indices);
                                    const size_t pos = prng.below(values.size());
                                    const int64_t extent = d.input.sizes[g.begin + pos % g.k];
                                    const bool below = is_signed_integer(d.indices.type) && prng.coin();
                                    values[pos] = below ? -extent - 1 - static_cast<int64_t>(prng.below(3))
                                                        : extent + static_cast<int64_t>(prng.below(3));
                                    // Before 3_0 any negative value is out of range too.
                                    if (below && c.level < FeatureLevel::L3_0) values[pos] = -1;
                                    c.data.indices = encode_indices(d.indices.type, values);
                                  }};
    m["SCATTERND.DUPLICATE"] = {
        {OpKind::SCATTER_ND},
        any,
        nullptr,
        [](const Case& c) {
          const auto& d = std::get<ScatterNdDesc>(c.op);
          return element_count(d.indices.sizes).value_or(0) / d.indices.sizes.back() >= 2;
        },
        [](Case& c, Prng& prng) {
          auto& d = as<ScatterNdDesc>(c);
          const uint32_t k = d.indices.sizes.back();
          auto values = decode_indices(d.indices.type, c.data.indices);
          const size_t tuples = values.size() / k;
          const size_t from = prng.below(tuples);
          size_t to = prng.below(tuples - 1);
          if (to >= from) ++to;
          std::copy_n(values.begin() + static_cast<ptrdiff_t>(from * k), k,
                      values.begin() + static_cast<ptrdiff_t>(to * k));
          c.data.indices = encode_indices(d.indices.type, values);
        }};
    m["GATHERELEMENTS.INDEX_RANGE"] = {
        {OpKind::GATHER_ELEMENTS}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
          auto& d = as<GatherElementsDesc>(c);
          auto values = decode_indices(d.indices.type, c.data.indices);
          const int64_t extent = d.input.sizes[d.axis];
          const bool below = is_signed_integer(d.indices.type) && prng.coin();
          int64_t bad = below ? -extent - 1 - static_cast<int64_t>(prng.below(3))
                              : extent + static_cast<int64_t>(prng.below(3));
          if (below && c.level < FeatureLevel::L3_0) bad = -1;
          // Element 0 always keeps its value under 0-stride sharing.
          values[0] = bad;
          if (values.size() > 1 && prng.coin()) values[prng.below(values.size())] = bad;
          c.data.indices = encode_indices(d.indices.type, values);
          share_broadcast_elements(d.indices, c.data.indices);
        }};
    return m;
  }();
  return m;
}

}  // namespace

std::optional<rc::Gen<Case>> unspecified_case(std::string_view rule_id, FeatureLevel level,
                                              std::vector<OpKind> ops) {
  const auto it = generators().find(rule_id);
  if (it == generators().end()) return std::nullopt;
  const UGenerator& g = it->second;
  std::vector<OpKind> candidates;
  for (OpKind op : kAllOps) {
    if (!g.ops.empty() && std::find(g.ops.begin(), g.ops.end(), op) == g.ops.end()) continue;
    if (!ops.empty() && std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    if (g.applicable(op, level)) candidates.push_back(op);
  }
  if (candidates.empty()) return std::nullopt;
  const std::string rule(rule_id);
  return rc::gen::mapcat(rc::gen::elementOf(candidates), [&g, rule, level](OpKind op) {
    CaseSpec spec;
    spec.level = level;
    spec.op = op;
    if (g.prepare) g.prepare(spec);
    rc::Gen<Case> base = case_for_spec(spec);
    if (g.base_ok) base = rc::gen::suchThat(base, g.base_ok);
    return rc::gen::apply(
        [&g, rule](Case c, uint32_t seed) {
          Prng prng(mix_seed(seed, 0x0115u));
          g.mutate(c, prng);
          c.expect = CaseClass::Unspecified;
          c.violates = {rule};
          c.expected_output.reset();
          c.name += "/unspecified/" + rule;
          return c;
        },
        base, raw());
  });
}

std::vector<std::string> unspecified_rules(FeatureLevel level, const std::vector<OpKind>& ops) {
  std::vector<std::string> out;
  for (const Rule& r : rule_catalog())
    if (!makes_invalid(r) && unspecified_case(r.id, level, ops)) out.emplace_back(r.id);
  return out;
}

}  // namespace dmlcert::props
