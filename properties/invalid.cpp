// Invalid cases: one mutator per doc/inferred rule ID. Each takes a valid case and breaks exactly
// that rule (others may follow from it, e.g. a wrong rank can also break a DIMCOUNT range); the
// case's `violates` names the rule.
#include <algorithm>
#include <functional>
#include <map>

#include "build.h"
#include "dmlcert/rules.h"

namespace dmlcert::props {
namespace {

using Mutate = std::function<void(Case&, Prng&)>;

struct Mutator {
  std::vector<OpKind> ops;  // empty: every operator
  // Whether the rule can be broken for op at level (the op exists there unless said otherwise).
  std::function<bool(OpKind, FeatureLevel)> applicable;
  // Adjusts the base valid case's spec (e.g. the maximum rank, or two dimensions at least).
  std::function<void(CaseSpec&)> prepare;
  // Base cases the mutation needs (e.g. a dimension of size >= 2), or null for any.
  std::function<bool(const Case&)> base_ok;
  Mutate mutate;
};

template <class T>
T& as(Case& c) {
  return std::get<T>(c.op);
}

// Roles with a tensor, optionally only inputs or only outputs.
std::vector<Role> tensor_roles(const Case& c) {
  return roles(op_kind(c.op));
}
Role pick_role(const Case& c, Prng& prng) {
  const auto rs = tensor_roles(c);
  return rs[prng.below(rs.size())];
}
uint32_t pick_dim(const TensorDesc& t, Prng& prng) {
  return static_cast<uint32_t>(prng.below(t.rank()));
}

void prepend_unit(TensorDesc& t) {
  t.sizes.insert(t.sizes.begin(), 1);
  if (t.strides) t.strides->insert(t.strides->begin(), 1);
}

// Adds a leading dimension of size 1 to every tensor and parameter: the same logical case, one
// rank higher.
void prepend_unit_dim_everywhere(Case& c) {
  for (Role r : tensor_roles(c)) prepend_unit(*tensor(c.op, r));
  std::visit(
      [](auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, SliceDesc>) {
          d.offsets.insert(d.offsets.begin(), 0);
          d.sizes.insert(d.sizes.begin(), 1);
          d.strides.insert(d.strides.begin(), 1);
        } else if constexpr (std::is_same_v<T, Slice1Desc>) {
          d.input_window_offsets.insert(d.input_window_offsets.begin(), 0);
          d.input_window_sizes.insert(d.input_window_sizes.begin(), 1);
          d.input_window_strides.insert(d.input_window_strides.begin(), 1);
        } else if constexpr (std::is_same_v<T, ReduceDesc>) {
          for (uint32_t& a : d.axes) ++a;
        } else if constexpr (std::is_same_v<T, GatherElementsDesc>) {
          ++d.axis;
        }
      },
      c.op);
}

// Another type legal for the role (so that only the match rule breaks), or any other type.
DataType other_type(const Case& c, Role role, DataType current, Prng& prng) {
  const auto s = support(op_kind(c.op), reduce_function(c.op), role, c.level);
  std::vector<DataType> options;
  if (s)
    for (DataType t : s->types)
      if (t != current) options.push_back(t);
  if (options.empty())
    for (DataType t : kAllDataTypes)
      if (t != current) options.push_back(t);
  return options[prng.below(options.size())];
}

void retype(Case& c, Role role, DataType type, Prng& prng) {
  TensorDesc& t = *tensor(c.op, role);
  t.type = type;
  refresh_total_bytes(t);
  refill_input(c, role, prng.next());
}

void resize(Case& c, Role role, uint32_t dim, uint32_t size, Prng& prng) {
  TensorDesc& t = *tensor(c.op, role);
  t.sizes[dim] = size;
  refresh_total_bytes(t);
  refill_input(c, role, prng.next());
}

void ensure_strides(TensorDesc& t) {
  if (!t.strides) {
    const auto packed = packed_strides(t.sizes);
    t.strides = std::vector<uint32_t>(packed.begin(), packed.end());
  }
}

bool exists(OpKind op, FeatureLevel level) {
  return level >= introduced_at(op);
}
bool has_big_dim(const Case& c) {
  for (Role r : roles(op_kind(c.op)))
    for (uint32_t s : tensor(c.op, r)->sizes)
      if (s >= 2) return true;
  return false;
}

// T.DTYPE: a role whose support list misses some type.
std::vector<Role> roles_with_unsupported_types(OpKind op, std::optional<ReduceFunction> f,
                                               FeatureLevel level) {
  std::vector<Role> out;
  for (Role r : roles(op)) {
    const auto s = support(op, f, r, level);
    if (s && s->types.size() < static_cast<size_t>(kDataTypeCount)) out.push_back(r);
  }
  return out;
}

const std::map<std::string_view, Mutator>& mutators() {
  static const std::map<std::string_view, Mutator> m = [] {
    std::map<std::string_view, Mutator> m;
    const auto any = [](OpKind op, FeatureLevel l) { return exists(op, l); };

    m["T.RANK"] = {{},
                   any,
                   [](CaseSpec& s) { s.rank = rank_range(s).hi; },
                   nullptr,
                   [](Case& c, Prng&) { prepend_unit_dim_everywhere(c); }};
    m["T.DTYPE"] = {
        {},
        [](OpKind op, FeatureLevel l) {
          if (!exists(op, l)) return false;
          // REDUCE never takes FLOAT64, whatever the function.
          return op == OpKind::REDUCE || !roles_with_unsupported_types(op, std::nullopt, l).empty();
        },
        nullptr,
        nullptr,
        [](Case& c, Prng& prng) {
          const auto rs = roles_with_unsupported_types(op_kind(c.op), reduce_function(c.op), c.level);
          const Role role = rs[prng.below(rs.size())];
          const auto s = support(op_kind(c.op), reduce_function(c.op), role, c.level);
          std::vector<DataType> bad;
          for (DataType t : kAllDataTypes)
            if (!s->allows(t)) bad.push_back(t);
          retype(c, role, bad[prng.below(bad.size())], prng);
        }};
    m["T.SIZE_ZERO"] = {{}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                          const Role r = pick_role(c, prng);
                          resize(c, r, pick_dim(*tensor(c.op, r), prng), 0, prng);
                        }};
    m["T.TOTAL_BYTES"] = {{}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                            TensorDesc& t = *tensor(c.op, pick_role(c, prng));
                            const uint64_t min = min_implied_bytes(t).value_or(4);
                            t.total_bytes = (prng.coin() && min >= 4) ? min - 4 : min + 1 + prng.below(3);
                          }};
    m["T.ELEMENT_LIMIT"] = {{}, any, nullptr, has_big_dim, [](Case& c, Prng& prng) {
                              std::vector<std::pair<Role, uint32_t>> big;
                              for (Role r : tensor_roles(c))
                                for (uint32_t i = 0; i < tensor(c.op, r)->rank(); ++i)
                                  if (tensor(c.op, r)->sizes[i] >= 2) big.emplace_back(r, i);
                              const auto [role, dim] = big[prng.below(big.size())];
                              TensorDesc& t = *tensor(c.op, role);
                              ensure_strides(t);
                              // The smallest stride with (size-1) * stride + 1 > 2^32-1, or a little more.
                              const uint64_t limit = 0xFFFFFFFFull, steps = t.sizes[dim] - 1;
                              (*t.strides)[dim] = static_cast<uint32_t>(
                                  std::min(limit, (limit + steps - 1) / steps + prng.below(16)));
                              t.total_bytes = min_implied_bytes(t).value_or(0);
                            }};
    m["T.STRIDES_COUNT"] = {{}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                              TensorDesc& t = *tensor(c.op, pick_role(c, prng));
                              ensure_strides(t);
                              if (prng.coin() || t.strides->empty())
                                t.strides->push_back(1);
                              else
                                t.strides->pop_back();
                            }};
    m["OP.FEATURE_LEVEL"] = {{OpKind::SLICE1, OpKind::SCATTER_ND, OpKind::GATHER_ELEMENTS},
                             [](OpKind op, FeatureLevel l) { return l < introduced_at(op); },
                             // The base case is valid at 2_1; the mutation moves it to the level asked.
                             [](CaseSpec& s) { s.level = FeatureLevel::L2_1; },
                             nullptr,
                             nullptr};  // set per call: needs the level
    m["OP.FUNCTION"] = {{OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                          as<ReduceDesc>(c).function =
                              static_cast<ReduceFunction>(kReduceFunctionCount + prng.below(100));
                        }};

    // SLICE and SLICE1 share the shape of their DIMCOUNT and DTYPE_MATCH mutations.
    const auto dimcount = [](Case& c, Prng& prng) {
      switch (prng.below(3)) {
        case 0: prepend_unit(*tensor(c.op, Role::OUTPUT)); break;
        case 1: prepend_unit(*tensor(c.op, Role::INPUT)); break;
        default: {
          // One parameter entry more than the tensors have dimensions.
          if (auto* d = std::get_if<SliceDesc>(&c.op)) {
            d->offsets.push_back(0), d->sizes.push_back(1), d->strides.push_back(1);
          } else if (auto* d1 = std::get_if<Slice1Desc>(&c.op)) {
            d1->input_window_offsets.push_back(0), d1->input_window_sizes.push_back(1);
            d1->input_window_strides.push_back(1);
          }
        }
      }
    };
    const auto output_type = [](Case& c, Prng& prng) {
      const DataType in = tensor(c.op, Role::INPUT)->type;
      retype(c, Role::OUTPUT, other_type(c, Role::OUTPUT, in, prng), prng);
    };
    const auto grow_output = [](Case& c, Prng& prng) {
      TensorDesc& o = *tensor(c.op, Role::OUTPUT);
      const uint32_t dim = pick_dim(o, prng);
      resize(c, Role::OUTPUT, dim, o.sizes[dim] + 1, prng);
    };

    m["SLICE.DIMCOUNT"] = {{OpKind::SLICE}, any, nullptr, nullptr, dimcount};
    m["SLICE.DTYPE_MATCH"] = {{OpKind::SLICE}, any, nullptr, nullptr, output_type};
    m["SLICE.SIZES_MATCH_OUTPUT"] = {{OpKind::SLICE}, any, nullptr, nullptr, grow_output};
    m["SLICE.IN_BOUNDS"] = {{OpKind::SLICE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                              auto& d = as<SliceDesc>(c);
                              const uint32_t i = pick_dim(d.input, prng);
                              // The last read lands at or one past the end (a valid case reaches at most
                              // Input.Sizes[i]-1, so the offset stays >= 1 before the shift).
                              const uint32_t reach = d.strides[i] * (d.sizes[i] - 1);
                              d.offsets[i] = d.input.sizes[i] - reach + static_cast<uint32_t>(prng.below(2));
                            }};

    m["SLICE1.DIMCOUNT"] = {{OpKind::SLICE1}, any, nullptr, nullptr, dimcount};
    m["SLICE1.DTYPE_MATCH"] = {{OpKind::SLICE1}, any, nullptr, nullptr, output_type};
    m["SLICE1.WINDOW_EMPTY"] = {{OpKind::SLICE1}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                  auto& d = as<Slice1Desc>(c);
                                  d.input_window_sizes[pick_dim(d.input, prng)] = 0;
                                }};
    m["SLICE1.WINDOW_BOUNDS"] = {{OpKind::SLICE1}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                   auto& d = as<Slice1Desc>(c);
                                   const uint32_t i = pick_dim(d.input, prng);
                                   d.input_window_offsets[i] = d.input.sizes[i] - d.input_window_sizes[i] +
                                                               1 + static_cast<uint32_t>(prng.below(2));
                                 }};
    m["SLICE1.STRIDE_ZERO"] = {{OpKind::SLICE1}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                 auto& d = as<Slice1Desc>(c);
                                 d.input_window_strides[pick_dim(d.input, prng)] = 0;
                               }};
    m["SLICE1.OUTPUT_SIZE"] = {{OpKind::SLICE1}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                 auto& d = as<Slice1Desc>(c);
                                 const uint32_t i = pick_dim(d.input, prng);
                                 const int64_t s = d.input_window_strides[i];
                                 const uint32_t most =
                                     1 + static_cast<uint32_t>((d.input_window_sizes[i] - 1) /
                                                               static_cast<uint64_t>(s < 0 ? -s : s));
                                 resize(c, Role::OUTPUT, i, most + 1, prng);
                               }};

    m["SCATTERND.DIMCOUNT"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                 const Role rs[] = {Role::INPUT, Role::INDICES, Role::UPDATES, Role::OUTPUT};
                                 prepend_unit(*tensor(c.op, rs[prng.below(4)]));
                               }};
    m["SCATTERND.DTYPE_MATCH"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                    const Role role = prng.coin() ? Role::UPDATES : Role::OUTPUT;
                                    const DataType in = tensor(c.op, Role::INPUT)->type;
                                    retype(c, role, other_type(c, role, in, prng), prng);
                                  }};
    m["SCATTERND.INPUT_DIMCOUNT"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                       auto& d = as<ScatterNdDesc>(c);
                                       d.input_dimension_count = prng.coin() ? 0 : d.input.rank() + 1;
                                     }};
    m["SCATTERND.INDICES_DIMCOUNT"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                         auto& d = as<ScatterNdDesc>(c);
                                         d.indices_dimension_count = prng.coin() ? 0 : d.indices.rank() + 1;
                                       }};
    m["SCATTERND.LEADING_DIMS"] = {{OpKind::SCATTER_ND},
                                   any,
                                   [](CaseSpec& s) { s.min_rank = 2; },
                                   nullptr,
                                   [](Case& c, Prng& prng) {
                                     auto& d = as<ScatterNdDesc>(c);
                                     const uint32_t r = d.input.rank();
                                     // Strip dimension 0 and make it 2 wide.
                                     if (prng.coin()) {
                                       d.input_dimension_count = std::min(d.input_dimension_count, r - 1);
                                       d.input.sizes[0] = d.output.sizes[0] = std::max(d.input.sizes[0], 2u);
                                       refresh_total_bytes(d.input), refresh_total_bytes(d.output);
                                       refill_input(c, Role::INPUT, prng.next());
                                     } else {
                                       d.indices_dimension_count = std::min(d.indices_dimension_count, r - 1);
                                       d.indices.sizes[0] = std::max(d.indices.sizes[0], 2u);
                                       refresh_total_bytes(d.indices);
                                       refill_input(c, Role::INDICES, prng.next());
                                     }
                                   }};
    m["SCATTERND.TUPLE_SIZE"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                   auto& d = as<ScatterNdDesc>(c);
                                   resize(c, Role::INDICES, d.indices.rank() - 1, d.input.rank() + 1, prng);
                                 }};
    m["SCATTERND.UPDATES_SHAPE"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                      TensorDesc& u = *tensor(c.op, Role::UPDATES);
                                      const uint32_t dim = pick_dim(u, prng);
                                      resize(c, Role::UPDATES, dim, u.sizes[dim] + 1, prng);
                                    }};
    m["SCATTERND.OUTPUT_SHAPE"] = {{OpKind::SCATTER_ND}, any, nullptr, nullptr, grow_output};

    m["REDUCE.DIMCOUNT"] = {{OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng&) {
                              prepend_unit(*tensor(c.op, Role::OUTPUT));
                            }};
    m["REDUCE.AXIS_RANGE"] = {{OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                auto& d = as<ReduceDesc>(c);
                                d.axes[prng.below(d.axes.size())] =
                                    d.input.rank() + static_cast<uint32_t>(prng.below(3));
                              }};
    m["REDUCE.OUTPUT_SIZES"] = {{OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
                                  auto& d = as<ReduceDesc>(c);
                                  const uint32_t i = pick_dim(d.output, prng);
                                  const bool reduced =
                                      std::find(d.axes.begin(), d.axes.end(), i) != d.axes.end();
                                  resize(c, Role::OUTPUT, i, reduced ? 2 : d.output.sizes[i] + 1, prng);
                                }};
    m["REDUCE.DTYPE_MATCH"] = {
        {OpKind::REDUCE}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
          auto& d = as<ReduceDesc>(c);
          if (is_arg_function(d.function)) {
            retype(c, Role::OUTPUT, prng.coin() ? DataType::FLOAT32 : DataType::FLOAT16, prng);
          } else {
            retype(c, Role::OUTPUT, other_type(c, Role::OUTPUT, d.input.type, prng), prng);
          }
        }};

    m["GATHERELEMENTS.DIMCOUNT"] = {
        {OpKind::GATHER_ELEMENTS}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
          prepend_unit(*tensor(c.op, prng.coin() ? Role::INDICES : Role::OUTPUT));
        }};
    m["GATHERELEMENTS.AXIS_RANGE"] = {
        {OpKind::GATHER_ELEMENTS}, any, nullptr, nullptr, [](Case& c, Prng& prng) {
          auto& d = as<GatherElementsDesc>(c);
          d.axis = d.input.rank() + static_cast<uint32_t>(prng.below(3));
        }};
    m["GATHERELEMENTS.INDICES_SHAPE"] = {{OpKind::GATHER_ELEMENTS},
                                         any,
                                         [](CaseSpec& s) { s.min_rank = 2; },
                                         nullptr,
                                         [](Case& c, Prng& prng) {
                                           auto& d = as<GatherElementsDesc>(c);
                                           uint32_t i = static_cast<uint32_t>(prng.below(d.input.rank() - 1));
                                           if (i >= d.axis) ++i;
                                           // Output follows the indices so that only INDICES_SHAPE breaks.
                                           resize(c, Role::INDICES, i, d.indices.sizes[i] + 1, prng);
                                           resize(c, Role::OUTPUT, i, d.output.sizes[i] + 1, prng);
                                         }};
    m["GATHERELEMENTS.OUTPUT_SHAPE"] = {{OpKind::GATHER_ELEMENTS}, any, nullptr, nullptr, grow_output};
    m["GATHERELEMENTS.DTYPE_MATCH"] = {{OpKind::GATHER_ELEMENTS}, any, nullptr, nullptr, output_type};
    return m;
  }();
  return m;
}

std::vector<OpKind> candidate_ops(const Mutator& mu, FeatureLevel level, const std::vector<OpKind>& ops) {
  std::vector<OpKind> out;
  for (OpKind op : kAllOps) {
    if (!mu.ops.empty() && std::find(mu.ops.begin(), mu.ops.end(), op) == mu.ops.end()) continue;
    if (!ops.empty() && std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    if (mu.applicable(op, level)) out.push_back(op);
  }
  return out;
}

}  // namespace

std::optional<rc::Gen<Case>> invalid_case(std::string_view rule_id, FeatureLevel level,
                                          std::vector<OpKind> ops) {
  const auto it = mutators().find(rule_id);
  if (it == mutators().end()) return std::nullopt;
  const Mutator& mu = it->second;
  const auto candidates = candidate_ops(mu, level, ops);
  if (candidates.empty()) return std::nullopt;
  const std::string rule(rule_id);
  return rc::gen::mapcat(rc::gen::elementOf(candidates), [&mu, rule, level](OpKind op) {
    CaseSpec spec;
    spec.level = level;
    spec.op = op;
    if (mu.prepare) mu.prepare(spec);
    rc::Gen<Case> base = case_for_spec(spec);
    if (mu.base_ok) base = rc::gen::suchThat(base, mu.base_ok);
    return rc::gen::apply(
        [&mu, rule, level](Case c, uint32_t seed) {
          Prng prng(mix_seed(seed, 0x1a7a11du));
          if (rule == "OP.FEATURE_LEVEL")
            c.level = level;
          else
            mu.mutate(c, prng);
          c.expect = CaseClass::Invalid;
          c.violates = {rule};
          c.expected_output.reset();
          c.name += "/invalid/" + rule;
          return c;
        },
        base, raw());
  });
}

std::vector<std::string> invalid_rules(FeatureLevel level, const std::vector<OpKind>& ops) {
  std::vector<std::string> out;
  for (const Rule& r : rule_catalog())
    if (makes_invalid(r) && invalid_case(r.id, level, ops)) out.emplace_back(r.id);
  return out;
}

}  // namespace dmlcert::props
