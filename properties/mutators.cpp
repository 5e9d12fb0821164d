// Invalid and class U cases by one mechanism (build.h, Mutator): a valid base case, then one
// mutator's edit, which makes exactly its rule the reason for the case's class (others may
// follow from it: a wrong rank can also break a DIMCOUNT range). The case's `violates` names the
// rule. The rules every operator shares are here; each operator's own rules are in its file.
#include <algorithm>

#include "build.h"

namespace dmlcert::props {
namespace {

bool exists(OpKind op, FeatureLevel level) {
  return level >= introduced_at(op);
}

// T.DTYPE: the roles whose support lists miss some type.
std::vector<Role> roles_with_unsupported_types(OpKind op, std::optional<ReduceFunction> f,
                                               FeatureLevel level) {
  std::vector<Role> out;
  for (Role r : roles(op)) {
    const auto s = support(op, f, r, level);
    if (s && s->types.size() < static_cast<size_t>(kDataTypeCount)) out.push_back(r);
  }
  return out;
}

// T.ELEMENT_LIMIT by a sum: two dimensions whose (size-1) * stride each stay below 2^32 but add up
// past 2^32-1, so that a span summed in 32 bits wraps to a small number. False when the tensor has
// no second dimension larger than 1.
bool span_sum_past_32_bits(TensorDesc& t, uint32_t dim, Choices& choices) {
  std::vector<uint32_t> others;
  for (uint32_t i = 0; i < t.rank(); ++i)
    if (i != dim && t.sizes[i] >= 2) others.push_back(i);
  if (others.empty()) return false;
  const uint32_t second = others[choices.below(others.size())];
  for (uint32_t d : {dim, second}) {
    const uint64_t steps = t.sizes[d] - 1;
    (*t.strides)[d] = static_cast<uint32_t>(((uint64_t{1} << 31) + steps - 1) / steps + choices.below(4));
  }
  t.total_bytes = min_implied_bytes(t).value_or(0);
  return true;
}

// T.TOTAL_BYTES by a product: a span below 2^32 elements whose size in bytes passes 2^32, with a
// TotalTensorSizeInBytes that covers only what is left of that size modulo 2^32. False for one-byte
// types or a tensor without a dimension larger than 1.
bool total_bytes_past_32_bits(TensorDesc& t, Choices& choices) {
  const uint64_t element = element_size(t.type);
  std::vector<uint32_t> big;
  for (uint32_t i = 0; i < t.rank(); ++i)
    if (t.sizes[i] >= 2) big.push_back(i);
  if (element < 2 || big.empty()) return false;
  ensure_strides(t);
  const uint32_t dim = big[choices.below(big.size())];
  const uint64_t steps = t.sizes[dim] - 1, elements = (uint64_t{1} << 32) / element + 1;
  (*t.strides)[dim] = static_cast<uint32_t>((elements + steps - 1) / steps);
  const uint64_t wrapped = min_implied_bytes(t).value_or(0) % (uint64_t{1} << 32);
  t.total_bytes = std::max<uint64_t>(4, (wrapped + 3) / 4 * 4 + 4 * choices.below(2));
  return true;
}

std::vector<Mutator> generic_invalid() {
  return {
      {"T.RANK", nullptr, [](CaseSpec& s) { s.rank = rank_range(s).hi; }, nullptr,
       [](Case& c, Choices&) { prepend_unit_dim_everywhere(c); }},
      {"T.DTYPE",
       [](OpKind op, FeatureLevel l) {
         // An operator with functions (REDUCE) has, for every function, types it never takes.
         return exists(op, l) &&
                (has_function(op) || !roles_with_unsupported_types(op, std::nullopt, l).empty());
       },
       nullptr, nullptr,
       [](Case& c, Choices& choices) {
         const auto rs = roles_with_unsupported_types(op_kind(c.op), reduce_function(c.op), c.level);
         const Role role = rs[choices.below(rs.size())];
         const auto s = support(op_kind(c.op), reduce_function(c.op), role, c.level);
         std::vector<DataType> bad;
         for (DataType t : kAllDataTypes)
           if (!s->allows(t)) bad.push_back(t);
         retype(c, role, bad[choices.below(bad.size())], choices);
       }},
      {"T.SIZE_ZERO", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         const Role r = pick_role(c, choices);
         resize(c, r, pick_dim(*tensor(c.op, r), choices), 0, choices);
       }},
      {"T.TOTAL_BYTES", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         TensorDesc& t = *tensor(c.op, pick_role(c, choices));
         if (choices.below(3) == 2 && total_bytes_past_32_bits(t, choices)) return;
         const uint64_t min = min_implied_bytes(t).value_or(4);
         t.total_bytes = (choices.coin() && min >= 4) ? min - 4 : min + 1 + choices.below(3);
       }},
      {"T.ELEMENT_LIMIT", nullptr, nullptr, has_big_dim,
       [](Case& c, Choices& choices) {
         std::vector<std::pair<Role, uint32_t>> big;
         for (Role r : roles(op_kind(c.op)))
           for (uint32_t i = 0; i < tensor(c.op, r)->rank(); ++i)
             if (tensor(c.op, r)->sizes[i] >= 2) big.emplace_back(r, i);
         const auto [role, dim] = big[choices.below(big.size())];
         TensorDesc& t = *tensor(c.op, role);
         ensure_strides(t);
         if (choices.below(3) == 2 && span_sum_past_32_bits(t, dim, choices)) return;
         // The smallest stride with (size-1) * stride + 1 > 2^32-1, or a little more.
         const uint64_t limit = 0xFFFFFFFFull, steps = t.sizes[dim] - 1;
         (*t.strides)[dim] =
             static_cast<uint32_t>(std::min(limit, (limit + steps - 1) / steps + choices.below(16)));
         t.total_bytes = min_implied_bytes(t).value_or(0);
       }},
      {"T.STRIDES_COUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         TensorDesc& t = *tensor(c.op, pick_role(c, choices));
         ensure_strides(t);
         if (!choices.coin() || t.strides->empty())
           t.strides->push_back(1);
         else
           t.strides->pop_back();
       }},
      // The base case is valid at the operator's first level; the mutation moves it below.
      {"OP.FEATURE_LEVEL", [](OpKind op, FeatureLevel l) { return l < introduced_at(op); },
       [](CaseSpec& s) { s.level = introduced_at(s.op); }, nullptr, nullptr},
  };
}

std::vector<Mutator> generic_unspecified() {
  return {
      {"T.OUTPUT_OVERLAP", nullptr, nullptr, has_big_output_dim,
       [](Case& c, Choices& choices) {
         TensorDesc& o = *tensor(c.op, Role::OUTPUT);
         std::vector<uint32_t> big;
         for (uint32_t i = 0; i < o.rank(); ++i)
           if (o.sizes[i] >= 2) big.push_back(i);
         ensure_strides(o);
         (*o.strides)[big[choices.below(big.size())]] = 0;
         refresh_total_bytes(o);
       }},
  };
}

// The mutator of a rule for one operator, if it has one.
const Mutator* find_mutator(std::string_view rule, OpKind op, bool invalid) {
  static const std::vector<Mutator> generic_i = generic_invalid(), generic_u = generic_unspecified();
  for (const Mutator& m : invalid ? generic_i : generic_u)
    if (m.rule == rule) return &m;
  const OperatorGenerators& g = generators_of(op);
  for (const Mutator& m : invalid ? g.invalid : g.unspecified)
    if (m.rule == rule) return &m;
  return nullptr;
}

bool reachable(const Mutator& m, OpKind op, FeatureLevel level) {
  return m.applicable ? m.applicable(op, level) : exists(op, level);
}

std::vector<std::pair<OpKind, const Mutator*>> mutators_for(std::string_view rule_id, FeatureLevel level,
                                                            const std::vector<OpKind>& ops, bool invalid) {
  std::vector<std::pair<OpKind, const Mutator*>> candidates;
  for (OpKind op : all_ops()) {
    if (!ops.empty() && std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    const Mutator* m = find_mutator(rule_id, op, invalid);
    if (m && reachable(*m, op, level)) candidates.emplace_back(op, m);
  }
  return candidates;
}

std::optional<rc::Gen<Case>> mutated_case(std::string_view rule_id, FeatureLevel level,
                                          const std::vector<OpKind>& ops, bool invalid) {
  const auto candidates = mutators_for(rule_id, level, ops, invalid);
  if (candidates.empty()) return std::nullopt;
  const std::string rule(rule_id);
  return rc::gen::mapcat(rc::gen::elementOf(candidates), [rule, level, invalid](const auto& candidate) {
    // Two variables, not a structured binding: clang 14 cannot capture one in a lambda.
    const auto op = std::get<0>(candidate);
    const auto m = std::get<1>(candidate);
    CaseSpec spec;
    spec.level = level;
    spec.op = op;
    if (m->prepare) m->prepare(spec);
    rc::Gen<Case> base = case_for_spec(spec);
    if (m->base_ok) base = rc::gen::suchThat(base, m->base_ok);
    return rc::gen::apply(
        [m, rule, level, invalid](Case c, std::vector<uint32_t> raw) {
          Choices choices(std::move(raw));
          if (m->mutate)
            m->mutate(c, choices);
          else
            c.level = level;  // OP.FEATURE_LEVEL: the same case, below the operator's first level
          // A mutation that changes strides (T.ELEMENT_LIMIT's wrapping spans, say) can make
          // elements share memory that the base case gave different values: the case holds what
          // its bindings can hold, or it would be judged on data the backend is never given (and
          // its file could not be read back).
          for (const Role r : roles(op_kind(c.op)))
            if (const TensorDesc* t = tensor(c.op, r); t && is_input_role(r))
              share_broadcast_elements(*t, c.data.of(r));
          c.expect = invalid ? CaseClass::Invalid : CaseClass::Unspecified;
          c.violates = {rule};
          c.expected_output.reset();
          c.name += (invalid ? "/invalid/" : "/unspecified/") + rule;
          return c;
        },
        base, choices_gen());
  });
}

std::vector<std::string> rules_reachable(FeatureLevel level, const std::vector<OpKind>& ops, bool invalid) {
  std::vector<std::string> out;
  for (const Rule& r : rule_catalog())
    if (makes_invalid(r) == invalid && mutated_case(r.id, level, ops, invalid)) out.emplace_back(r.id);
  return out;
}

}  // namespace

std::optional<rc::Gen<Case>> invalid_case(std::string_view rule_id, FeatureLevel level,
                                          std::vector<OpKind> ops) {
  return mutated_case(rule_id, level, ops, true);
}
std::optional<rc::Gen<Case>> unspecified_case(std::string_view rule_id, FeatureLevel level,
                                              std::vector<OpKind> ops) {
  return mutated_case(rule_id, level, ops, false);
}
std::vector<OpKind> rule_operators(std::string_view rule_id, FeatureLevel level, bool invalid,
                                   const std::vector<OpKind>& ops) {
  std::vector<OpKind> out;
  for (const auto& [op, m] : mutators_for(rule_id, level, ops, invalid)) out.push_back(op);
  return out;
}
std::vector<std::string> invalid_rules(FeatureLevel level, const std::vector<OpKind>& ops) {
  return rules_reachable(level, ops, true);
}
std::vector<std::string> unspecified_rules(FeatureLevel level, const std::vector<OpKind>& ops) {
  return rules_reachable(level, ops, false);
}

}  // namespace dmlcert::props
