// What every mutant backend shares: the reference backend with one place replaced by a short,
// deliberately buggy copy of the reference's loop, exported as a plugin whose name is
// "mutant: <the bug in one line>" (from the catalog, so the doc generator and the plugin agree).
#pragma once

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/indices.h"
#include "dmlcert/reduce_groups.h"
#include "dmlcert/rules.h"
#include "dmlcert/validate.h"
#include "mutant_catalog.h"
#include "plugin/backend_adapter.h"
#include "plugin/wire.h"
#include "reference/internal.h"
#include "reference/reference.h"

namespace dmlcert::mutants {

using reference::detail::copy_element;
using reference::detail::InputTensor;
using reference::detail::ok;
using reference::detail::OutputTensor;

// Whether the reference would execute this call: the descriptor is not invalid, every binding
// holds its minimum implied size, and any class U finding has an admissible result. Only such
// calls reach a mutant's buggy code, so each mutant breaks exactly one behaviour.
inline bool reference_executes(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) {
  const Validation v = validate(desc, level);
  if (!v.invalid.empty()) return false;
  for (const Violation& u : v.unspecified)
    if (const Rule* r = find_rule(u.rule); r && r->admits == Admits::Anything) return false;
  return binding_violations(desc, b).empty();
}

// An index element resolved as the reference does (dmlcert/indices.h), or nullopt.
inline std::optional<uint32_t> resolve_index(DataType t, const std::byte* p, uint32_t d, FeatureLevel level) {
  const auto v = integer_value(t, p);
  if (!v) return std::nullopt;
  return dmlcert::resolve_index(*v, d, negative_indices_allowed(t, level));
}

// The reference's SCATTER_ND writes, or the out-of-range index.
struct ScatterPlan {
  std::vector<reference::detail::ScatterWrite> writes;
  std::optional<Violation> error;
};
inline ScatterPlan plan_scatter_nd(const ScatterNdDesc& d, FeatureLevel level, ConstBuffer indices) {
  auto planned =
      reference::detail::plan_scatter_nd(d, *d.geometry(), level, InputTensor(d.indices, indices.data));
  if (auto* e = std::get_if<Violation>(&planned)) return {{}, *e};
  return {std::get<std::vector<reference::detail::ScatterWrite>>(planned), std::nullopt};
}

// The reference backend with hooks. A mutant (or a legitimate variant) overrides `mutated` (the buggy place,
// for calls the reference executes) or `intercept` (validation bugs, which must see every call). Either
// returns nullopt to leave the call to the reference.
class PatchedReference : public Backend {
 public:
  PatchedReference() : reference_(reference::make_backend()) {}
  std::string name() const override { return "patched reference"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> f, DataType t) const override {
    return reference_->implements(op, f, t);
  }
  ExecResult execute(const OperatorDesc& d, FeatureLevel level, const Bindings& b) override {
    if (auto r = intercept(d, level, b)) return *r;
    if (reference_executes(d, level, b))
      if (auto r = mutated(d, level, b)) return *r;
    return reference_->execute(d, level, b);
  }

 protected:
  virtual std::optional<ExecResult> intercept(const OperatorDesc&, FeatureLevel, const Bindings&) {
    return std::nullopt;
  }
  virtual std::optional<ExecResult> mutated(const OperatorDesc&, FeatureLevel, const Bindings&) {
    return std::nullopt;
  }
  Backend& reference() { return *reference_; }

 public:
  // What this backend leaves alone goes to `below` instead of the reference: a plugin of two
  // mutants is one stacked on the other (mutant_pair.cpp.in), each with its own bug.
  void stack_on(std::unique_ptr<Backend> below) { reference_ = std::move(below); }

 private:
  std::unique_ptr<Backend> reference_;
};

inline ExecResult rejected(std::string message) {
  return exec_result(Status::InvalidArgument, Fault::None, std::move(message));
}

// GATHER_ELEMENTS as the reference walks it, with every index element resolved by `resolve` into
// a coordinate along the axis; nullopt is out of range, and the call is then rejected before
// anything is written.
inline ExecResult gather_elements_with(
    const GatherElementsDesc& d, const Bindings& b,
    const std::function<std::optional<uint32_t>(const std::byte*)>& resolve) {
  const InputTensor input(d.input, b.input.data);
  const InputTensor indices(d.indices, b.indices.data);
  const OutputTensor output(d.output, b.output.data);
  std::vector<uint32_t> resolved;
  bool out_of_range = false;
  for_each_coord(d.indices.sizes, [&](const Coord& c) {
    const auto at = resolve(indices.at(c));
    out_of_range = out_of_range || !at;
    resolved.push_back(at.value_or(0));
  });
  if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
  std::size_t next = 0;
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from = c;
    from[d.axis] = resolved[next++];
    copy_element(output.at(c), input.at(from), output.element_bytes());
  });
  return ok();
}

// A descriptor as bytes (every field), for backends that cache per descriptor.
inline std::string descriptor_key(const OperatorDesc& d) {
  plugin::wire::Writer w;
  w.desc(d);
  return w.bytes();
}

// The operator's own kernel, without its checks: what a backend runs once its own validation
// (right or wrong) has passed.
inline ExecResult run_kernel(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) {
  return visit(desc, [&](const auto& d) { return reference::compute(d, level, b, Reading{}); });
}

// Which bytes of an output binding of `binding_bytes` hold a logical element; the others are
// padding (strides larger than packed, slack past the last element). Empty when the descriptor
// is too large to walk or its strides do not match its sizes.
inline std::vector<bool> logical_bytes(const TensorDesc& out, uint64_t binding_bytes) {
  const auto count = element_count(out.sizes);
  if (!count || *count > (1u << 20) || (out.strides && out.strides->size() != out.sizes.size())) return {};
  std::vector<bool> logical(binding_bytes, false);
  const auto strides = effective_strides(out);
  const size_t element = element_size(out.type);
  for_each_coord(out.sizes, [&](const Coord& c) {
    const uint64_t at = element_offset(c, strides) * element;
    for (size_t i = 0; i < element && at + i < logical.size(); ++i) logical[at + i] = true;
  });
  return logical;
}

// The validator's findings when they are exactly `rules` (in any order, each at least once).
inline bool only_broken(const Validation& v, std::initializer_list<std::string_view> rules) {
  if (v.invalid.empty()) return false;
  for (const Violation& x : v.invalid)
    if (std::find(rules.begin(), rules.end(), x.rule) == rules.end()) return false;
  return true;
}

// ---- REDUCE helpers: the reference's group walk, for mutants that replace one function --------

using Elements = std::vector<const std::byte*>;  // one group's input elements, in group order

// Calls f(elements, destination) for every output element, like the reference's reduce loop.
inline void for_each_group(const ReduceDesc& d, const Bindings& b,
                           const std::function<void(const Elements&, std::byte*)>& f) {
  const InputTensor input(d.input, b.input.data);
  const OutputTensor output(d.output, b.output.data);
  const auto groups = reduction_groups(d.input.sizes, d.axes);
  std::size_t g = 0;
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Elements xs;
    for (uint64_t flat : groups[g++]) xs.push_back(input.at(unravel(flat, d.input.sizes)));
    f(xs, output.at(c));
  });
}

// Rounds once to the output type, as the reference does.
inline void store_rounded(DataType t, long double v, std::byte* p) {
  if (t == DataType::FLOAT32)
    store<float>(p, static_cast<float>(v));
  else
    from_double(t, static_cast<double>(v), p);
}

inline void store_index(DataType t, std::size_t index, std::byte* p) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_v<T>) store<T>(p, static_cast<T>(index));
  });
}

// An element's value in its own type (half as float), for comparisons.
template <class T>
auto element_value(const std::byte* p) {
  if constexpr (std::is_same_v<T, half>)
    return static_cast<float>(load<half>(p));
  else
    return load<T>(p);
}
template <class T>
bool element_is_nan(const std::byte* p) {
  if constexpr (is_float_v<T>)
    return std::isnan(element_value<T>(p));
  else
    return false;
}

// The reduce descriptor of a call when it is REDUCE with one of `functions` (all when empty).
inline const ReduceDesc* reduce_of(const OperatorDesc& d,
                                   std::initializer_list<ReduceFunction> functions = {}) {
  const auto* r = std::get_if<ReduceDesc>(&d);
  if (!r || functions.size() == 0) return r;
  for (ReduceFunction f : functions)
    if (r->function == f) return r;
  return nullptr;
}

}  // namespace dmlcert::mutants

// Exports a PatchedReference class as the plugin's backend, under the given name.
#define DMLCERT_EXPORT_PATCHED_REFERENCE(plugin_name, Class)                                             \
  extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) { \
    return dmlcert::plugin::export_backend(abi_version, std::make_unique<Class>(),                       \
                                           std::string(plugin_name));                                    \
  }
// A mutant's plugin is named "mutant: <its catalog description>". Its entry point is weak, and
// its backend can be made by name (dmlcert_make_mutant_<id>), so that two mutants' objects link
// into one plugin whose own entry point stacks them (mutant_pair.cpp.in).
#define DMLCERT_EXPORT_MUTANT(id, Class)                                                                \
  std::unique_ptr<dmlcert::mutants::PatchedReference> dmlcert_make_mutant_##id() {                      \
    return std::make_unique<Class>();                                                                   \
  }                                                                                                     \
  extern "C" DMLCERT_PLUGIN_EXPORT __attribute__((weak)) const dmlcert_backend_v1* dmlcert_get_backend( \
      uint32_t abi_version) {                                                                           \
    return dmlcert::plugin::export_backend(abi_version, dmlcert_make_mutant_##id(),                     \
                                           "mutant: " + std::string(dmlcert::mutants::describe(#id)));  \
  }
