// What a generated case must have (CaseSpec) and the helpers every per-operator generator
// shares: the deterministic PRNG, the rank and type choices the support tables allow, element
// budgets, and dispatch to the operator's generator.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "build.h"

namespace dmlcert::props {

uint64_t Prng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t mix_seed(uint64_t a, uint64_t b) {
  Prng p(a * 0x9E3779B97F4A7C15ull + b);
  p.next();
  return p.next();
}

RankRange rank_range(const CaseSpec& spec) {
  RankRange r{1, 8};
  for (Role role : roles(spec.op)) {
    const auto s = support(spec.op, spec.function.value_or(ReduceFunction::SUM), role, spec.level);
    if (!s) return {1, 0};
    r.lo = std::max(r.lo, s->min_rank);
    r.hi = std::min(r.hi, s->max_rank);
  }
  r.lo = std::max(r.lo, spec.min_rank);
  r.shrink_lo = r.lo;
  if (spec.rank) r.lo = std::max(r.lo, *spec.rank), r.hi = std::min(r.hi, *spec.rank);
  return r;
}

std::vector<DataType> role_types(const CaseSpec& spec, Role role) {
  const auto s = support(spec.op, spec.function.value_or(ReduceFunction::SUM), role, spec.level);
  return s ? s->types : std::vector<DataType>{};
}

std::vector<DataType> common_types(const CaseSpec& spec, const std::vector<Role>& rs) {
  std::vector<DataType> out;
  for (DataType t : kAllDataTypes) {
    bool all = true;
    for (Role r : rs) {
      const auto types = role_types(spec, r);
      all = all && std::find(types.begin(), types.end(), t) != types.end();
    }
    if (all) out.push_back(t);
  }
  return out;
}

rc::Gen<DataType> type_gen(std::optional<DataType> fixed, const std::vector<DataType>& allowed) {
  if (fixed) return rc::gen::just(*fixed);
  return rc::gen::elementOf(allowed);
}

rc::Gen<uint32_t> raw(uint32_t n) {
  return rc::gen::inRange<uint32_t>(0, n);
}

rc::Gen<uint32_t> raw_size() {
  return rc::gen::resize(100, raw());
}

uint64_t element_budget(int size) {
  return 4 + 20 * static_cast<uint64_t>(std::clamp(size, 0, 100));
}

rc::Gen<SizeBudget> budget_gen() {
  return rc::gen::construct<SizeBudget>(
      rc::gen::withSize([](int size) { return rc::gen::just(element_budget(size)); }), raw(),
      rc::gen::weightedElement<bool>({{1, false}, {3, true}}));
}

namespace {

// One dimension's size under a cap, and what is left of the budget after it. The raw choice (in
// [0, 2^16)) is scaled into [1, cap], so that a larger budget never gives a smaller size for the
// same choice (a case grows with rapidcheck's size) and a shrink of the choice shrinks the size.
uint32_t capped_size(uint32_t raw_choice, uint64_t cap, uint64_t& remaining) {
  const uint64_t scaled = (uint64_t{raw_choice % (1u << 16)} * std::max<uint64_t>(cap, 1)) >> 16;
  const uint32_t s = 1 + static_cast<uint32_t>(scaled);
  remaining = std::max<uint64_t>(1, remaining / s);
  return s;
}

}  // namespace

uint32_t budgeted_size(uint32_t raw_choice, uint64_t& remaining) {
  return capped_size(raw_choice, std::clamp<uint64_t>(remaining, 1, 64), remaining);
}

Sizes budgeted_sizes(const std::vector<uint32_t>& raw_choices, const SizeBudget& budget) {
  const size_t n = raw_choices.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  if (budget.order != 0) {
    Prng prng(mix_seed(budget.order, 0x0bd3u));
    for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[prng.below(i)]);
  }
  Sizes sizes(n, 1);
  uint64_t remaining = budget.elements;
  for (size_t k = 0; k < n; ++k) {
    const size_t d = order[k];
    if (!budget.spread) {
      sizes[d] = budgeted_size(raw_choices[d], remaining);
      continue;
    }
    // The fair share of the dimensions left, plus two, so that every dimension is larger than 1
    // in most cases even when the share rounds down to 1 or 2; never more than is left, so that
    // the product stays within the budget.
    const double share =
        std::floor(std::pow(static_cast<double>(remaining), 1.0 / static_cast<double>(n - k)));
    const uint64_t cap = std::min<uint64_t>({static_cast<uint64_t>(share) + 2, remaining, 64});
    sizes[d] = capped_size(raw_choices[d], cap, remaining);
  }
  return sizes;
}

Case new_case(const CaseSpec& spec, OperatorDesc op) {
  Case c;
  c.level = spec.level;
  c.op = std::move(op);
  c.expect = CaseClass::Valid;
  c.name = std::string(file_stem(spec.op));
  return c;
}

void refresh_total_bytes(TensorDesc& t) {
  if (t.strides && t.strides->size() != t.sizes.size()) return;
  t.total_bytes = min_implied_bytes(t).value_or(0);
}

void refill_input(Case& c, Role role, uint64_t seed) {
  const TensorDesc* t = tensor(c.op, role);
  if (!t || !is_input_role(role)) return;
  const uint64_t n = element_count(t->sizes).value_or(0);
  Bytes& data = c.data.of(role);
  if (role == Role::INDICES) {
    data = is_integer(t->type) ? encode_indices(t->type, std::vector<int64_t>(n, 0))
                               : Bytes(n * element_size(t->type), std::byte{0});
  } else {
    data = fill_movement(t->type, n, FillSpec{DataMode::Exact, seed, 3});
    if (t->strides && t->strides->size() == t->sizes.size()) share_broadcast_elements(*t, data);
  }
}

rc::Gen<std::vector<uint32_t>> choices_gen() {
  return rc::gen::container<std::vector<uint32_t>>(8, raw());
}

const OperatorGenerators& generators_of(OpKind op) {
  static const std::vector<OperatorGenerators> all = [] {
    std::vector<OperatorGenerators> v;
#define DMLCERT_OPERATOR_GENERATORS(KIND, stem, Desc) v.push_back(stem##_generators());
    DMLCERT_FOR_EACH_OPERATOR(DMLCERT_OPERATOR_GENERATORS)
#undef DMLCERT_OPERATOR_GENERATORS
    return v;
  }();
  return all.at(static_cast<size_t>(op));
}

namespace {

bool has(const std::vector<DataType>& types, std::optional<DataType> t) {
  return !types.empty() && (!t || std::find(types.begin(), types.end(), *t) != types.end());
}

// Whether the spec's fixed types fit its function (or its operator without one): the data type
// on every data role at once, the index type on the roles typed separately.
bool types_fit(const CaseSpec& spec) {
  std::vector<Role> data_roles;
  std::optional<Role> index_role;
  for (Role r : roles(spec.op))
    (typed_separately(spec.op, spec.function, r) ? (void)(index_role = r) : data_roles.push_back(r));
  if (!has(common_types(spec, data_roles), spec.data_type)) return false;
  if (spec.index_type && !index_role) return false;
  return !index_role || has(role_types(spec, *index_role), spec.index_type);
}

}  // namespace

std::vector<ReduceFunction> functions_for(const CaseSpec& spec) {
  std::vector<ReduceFunction> out;
  for (const auto& f : functions_of(spec.op)) {
    if (!f || (spec.function && *f != *spec.function)) continue;
    CaseSpec s = spec;
    s.function = f;
    if (!rank_range(s).empty() && types_fit(s)) out.push_back(*f);
  }
  return out;
}

bool spec_satisfiable(const CaseSpec& spec) {
  if (spec.level < introduced_at(spec.op)) return false;
  if (has_function(spec.op)) return !functions_for(spec).empty();
  return !rank_range(spec).empty() && types_fit(spec);
}

rc::Gen<Case> case_for_spec(const CaseSpec& spec) {
  if (!has_function(spec.op) || spec.function) return generators_of(spec.op).valid(spec);
  return rc::gen::mapcat(rc::gen::elementOf(functions_for(spec)), [spec](ReduceFunction f) {
    CaseSpec s = spec;
    s.function = f;
    return generators_of(s.op).valid(s);
  });
}

}  // namespace dmlcert::props
