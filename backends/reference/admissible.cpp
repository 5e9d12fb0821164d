// The admissible outputs of a case (SPEC.md, "Three classes of case"): the reference result for a
// valid case; for a class U case every admissible result SPEC.md lists, or none when it lists
// none. The runner compares element by element against any of them.
#include <algorithm>
#include <map>

#include "dmlcert/validate.h"
#include "reference/internal.h"
#include "reference/reference.h"

namespace dmlcert::reference {
namespace {

// The case's input data placed in memory following each descriptor's strides, and a zeroed
// output buffer, all of their minimum implied sizes.
class CaseBuffers {
 public:
  CaseBuffers(const OperatorDesc& desc, const InputData& data) : output_(*tensor(desc, Role::OUTPUT)) {
    for (Role role : roles(op_kind(desc))) {
      const TensorDesc& t = *tensor(desc, role);
      const uint64_t bytes = min_implied_bytes(t).value_or(0);
      memory_[role] = is_input_role(role) ? to_memory(t, data.of(role), bytes) : Bytes(bytes, std::byte{0});
    }
  }
  Bindings bindings() {
    Bindings b;
    auto bind = [&](Role r) { return ConstBuffer{memory_[r].data(), memory_[r].size()}; };
    if (memory_.count(Role::INPUT)) b.input = bind(Role::INPUT);
    if (memory_.count(Role::INDICES)) b.indices = bind(Role::INDICES);
    if (memory_.count(Role::UPDATES)) b.updates = bind(Role::UPDATES);
    b.output = MutableBuffer{memory_[Role::OUTPUT].data(), memory_[Role::OUTPUT].size()};
    return b;
  }
  Bytes logical_output() const { return from_memory(output_, memory_.at(Role::OUTPUT)); }

 private:
  TensorDesc output_;
  std::map<Role, Bytes> memory_;
};

// Runs `op` on fresh buffers; nullopt when it rejects the case.
template <class Op>
std::optional<Bytes> run(const OperatorDesc& desc, const InputData& data, Op op) {
  CaseBuffers buffers(desc, data);
  if (op(buffers.bindings()).status != Status::Ok) return std::nullopt;
  return buffers.logical_output();
}

// SCATTERND.DUPLICATE: every choice of one competing update per contested element is admissible.
// Candidate j takes, at each element, the j-th update written there (the last one when fewer
// compete), so every competing update appears at its element in some candidate. The first
// candidate is the reference's last-write-wins result.
std::vector<Bytes> scatter_nd_candidates(const ScatterNdDesc& d, FeatureLevel level, const InputData& data) {
  CaseBuffers buffers(OperatorDesc{d}, data);
  const detail::ScatterPlan plan = detail::plan_scatter_nd(d, level, buffers.bindings().indices);
  if (plan.error) return {};
  std::map<uint64_t, std::vector<uint64_t>> writers;  // output flat index -> update flat indices
  for (const detail::ScatterWrite& w : plan.writes)
    writers[flat_index(w.output, d.output.sizes)].push_back(flat_index(w.update, d.updates.sizes));
  std::size_t most = 1;
  for (const auto& [at, from] : writers) most = std::max(most, from.size());

  const std::size_t es = element_size(d.output.type);
  if (data.input.size() != element_count(d.input.sizes).value_or(0) * es ||
      data.updates.size() != element_count(d.updates.sizes).value_or(0) * es)
    return {};  // data that does not match its descriptor (a malformed case)
  auto candidate = [&](std::size_t j) {
    Bytes out = data.input;  // output = input, logically (Output.Sizes == Input.Sizes)
    for (const auto& [at, from] : writers) {
      const uint64_t u = from[std::min(j, from.size() - 1)];
      std::copy_n(data.updates.begin() + u * es, es, out.begin() + at * es);
    }
    return out;
  };
  std::vector<Bytes> out{candidate(most - 1)};
  for (std::size_t j = 0; j + 1 < most; ++j) out.push_back(candidate(j));
  return out;
}

}  // namespace

std::vector<Bytes> admissible_outputs(const OperatorDesc& desc, FeatureLevel level, const InputData& data) {
  const Validation v = validate(desc, level);
  if (!v.invalid.empty()) return {};
  for (const Violation& u : v.unspecified)
    if (!detail::has_admissible_result(u)) return {};  // T.OUTPUT_OVERLAP

  bool duplicate = false, nonfinite = false;
  for (const Violation& f : check_data(desc, level, data)) {
    if (f.rule == "SCATTERND.DUPLICATE")
      duplicate = true;
    else if (f.rule == "REDUCE.NONFINITE")
      nonfinite = true;
    else
      return {};  // *.INDEX_RANGE, REDUCE.INT_OVERFLOW: no admissible result
  }

  if (nonfinite) {
    // Only MIN/MAX/ARGMIN/ARGMAX have admissible results for non-finite data: IEEE-propagating
    // or NaN-ignoring.
    const ReduceDesc& d = std::get<ReduceDesc>(desc);
    const bool selects =
        d.function == ReduceFunction::MIN || d.function == ReduceFunction::MAX || is_arg_function(d.function);
    if (!selects) return {};
    std::vector<Bytes> out;
    for (detail::NanPolicy p : {detail::NanPolicy::Propagate, detail::NanPolicy::Ignore}) {
      auto r = run(desc, data, [&](const Bindings& b) { return detail::reduce_with(d, b, p); });
      if (r && std::find(out.begin(), out.end(), *r) == out.end()) out.push_back(std::move(*r));
    }
    return out;
  }
  if (duplicate) return scatter_nd_candidates(std::get<ScatterNdDesc>(desc), level, data);

  auto backend = make_backend();
  auto r = run(desc, data, [&](const Bindings& b) { return backend->execute(desc, level, b); });
  if (!r) return {};
  return {std::move(*r)};
}

}  // namespace dmlcert::reference
