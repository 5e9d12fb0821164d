// Fluent per-operator testers (each operator's tester opens its tests/<stem>_test.cpp), so that a test case
// reads like a sentence:
//
//   SliceTester().input_sizes({1, 1, 4, 4}).offsets({0, 0, 1, 2}).sizes({1, 1, 3, 2}).strides({1, 1, 1, 1})
//       .input_data(Values::iota(16)).expect_output({7, 8, 11, 12, 15, 16}).run(backend);
//
// A tester is a value: tables of named cases hold them, and the same table runs against any
// Backend (the reference, the optimized backend, a mock). Defaults: feature level 5_0, FLOAT32
// data, UINT32 indices, packed tensors of their minimum implied size, and the output shape the
// operator's rules imply (overridable to build invalid cases).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/operators.h"
#include "dmlcert/runner.h"
#include "optimized/optimized.h"
#include "test_util.h"

namespace dmlcert::test {

// Every operator's table of hand-computed cases (tests/<stem>_test.cpp) runs on both built-in
// backends.
inline Backend& optimized_backend() {
  static const std::unique_ptr<Backend> backend = optimized::make_backend();
  return *backend;
}

// How strictly run() compares float reduction results. The reference is held to the correctly
// rounded value (0 ulp); a backend under test may be given slack.
struct CheckPolicy {
  uint64_t float_reduction_ulp = 0;
};

// A tester's hand-computed results as the oracle: each is admissible (none: anything is).
class HandOracle final : public Oracle {
 public:
  explicit HandOracle(std::vector<Bytes> outputs) : outputs_(std::move(outputs)) {}
  std::optional<std::vector<Bytes>> admissible_outputs(const Case&, const Classification&,
                                                       std::string*) override {
    return outputs_;
  }

 private:
  std::vector<Bytes> outputs_;
};

template <class Derived>
class OpTester {
 public:
  // Feature level the case runs at (default 5_0).
  Derived& level(FeatureLevel l) { return set(level_, l); }
  // Data type of every data tensor (input, updates, output); default FLOAT32.
  Derived& type(DataType t) { return set(type_, t); }

  Derived& input_type(DataType t) { return set(spec_[Role::INPUT].type, t); }
  Derived& input_sizes(Sizes s) { return set(spec_[Role::INPUT].sizes, std::move(s)); }
  Derived& input_strides(std::vector<uint32_t> s) { return set(spec_[Role::INPUT].strides, std::move(s)); }
  Derived& input_total_bytes(uint64_t n) { return set(spec_[Role::INPUT].total_bytes, n); }
  Derived& input_data(Values v) { return set(spec_[Role::INPUT].data, std::move(v)); }

  Derived& indices_type(DataType t) { return set(spec_[Role::INDICES].type, t); }
  Derived& indices_sizes(Sizes s) { return set(spec_[Role::INDICES].sizes, std::move(s)); }
  Derived& indices_strides(std::vector<uint32_t> s) {
    return set(spec_[Role::INDICES].strides, std::move(s));
  }
  Derived& indices_data(Values v) { return set(spec_[Role::INDICES].data, std::move(v)); }

  Derived& updates_type(DataType t) { return set(spec_[Role::UPDATES].type, t); }
  Derived& updates_sizes(Sizes s) { return set(spec_[Role::UPDATES].sizes, std::move(s)); }
  Derived& updates_strides(std::vector<uint32_t> s) {
    return set(spec_[Role::UPDATES].strides, std::move(s));
  }
  Derived& updates_data(Values v) { return set(spec_[Role::UPDATES].data, std::move(v)); }

  Derived& output_type(DataType t) { return set(spec_[Role::OUTPUT].type, t); }
  Derived& output_sizes(Sizes s) { return set(spec_[Role::OUTPUT].sizes, std::move(s)); }
  Derived& output_strides(std::vector<uint32_t> s) { return set(spec_[Role::OUTPUT].strides, std::move(s)); }
  Derived& output_total_bytes(uint64_t n) { return set(spec_[Role::OUTPUT].total_bytes, n); }

  // A binding smaller (or larger) than the tensor's TotalTensorSizeInBytes.
  Derived& binding_bytes(Role r, uint64_t n) {
    binding_bytes_[r] = n;
    return self();
  }

  // The backend executes and produces exactly these logical output values.
  Derived& expect_output(Values v) {
    expect_ = Expect::Output;
    candidates_ = {std::move(v)};
    return self();
  }
  // Class U with several admissible results: each element must equal that element of one of them.
  Derived& expect_output_one_of(std::vector<Values> candidates) {
    expect_ = Expect::Output;
    candidates_ = std::move(candidates);
    return self();
  }
  // The result is a float reduction: run()'s CheckPolicy may allow slack; NaN matches any NaN.
  Derived& float_reduction() { return set(float_reduction_, true); }
  // The backend rejects the case with InvalidArgument, names `rule` (when it reports rules) and
  // writes nothing.
  Derived& expect_rejected(std::string rule) {
    expect_ = Expect::Rejected;
    rule_ = std::move(rule);
    return self();
  }

  // The descriptor and logical input data the tester describes.
  OperatorDesc desc() const { return static_cast<const Derived&>(*this).build(); }
  FeatureLevel feature_level() const { return level_; }
  InputData data() const {
    const OperatorDesc d = desc();
    InputData data;
    for (Role r : {Role::INPUT, Role::INDICES, Role::UPDATES}) {
      const TensorDesc* t = tensor(d, r);
      if (!t) continue;
      Bytes bytes = spec(r).data.encode(t->type);
      const uint64_t want = element_count(t->sizes).value_or(0);
      if (spec(r).data.size() != want)
        ADD_FAILURE() << "test data for " << name(r) << " has " << spec(r).data.size()
                      << " values; its sizes hold " << want;
      (r == Role::INPUT ? data.input : r == Role::INDICES ? data.indices : data.updates) = std::move(bytes);
    }
    return data;
  }

  // The case the tester describes, classified as the validator classifies it.
  Case to_case(CheckPolicy policy = {}) const {
    Case c;
    c.name = "tester";
    c.op = desc();
    c.level = level_;
    c.data = data();
    c.expect = classify(c.op, c.level, c.data).case_class;
    // Float reductions are held to the policy's ulps of the hand-computed result, not to the
    // error bound the data would allow: 0 for the reference, which rounds correctly.
    if (float_reduction_) c.tolerance = Tolerance{policy.float_reduction_ulp, std::nullopt, std::nullopt};
    return c;
  }

  // Runs the case on `backend` through the runner, judged against the hand-computed results: the
  // runner also checks that no input changed, that nothing was written past a binding and that a
  // rejection left the output alone.
  void run(Backend& backend, CheckPolicy policy = {}) const {
    const Case c = to_case(policy);
    std::vector<Bytes> expected;
    for (const Values& v : candidates_) expected.push_back(v.encode(tensor(c.op, Role::OUTPUT)->type));
    // A rejection is expected: the oracle's output is never compared, but a valid descriptor
    // (with a binding too small for it) needs one for the runner to call the backend at all.
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    if (expect_ == Expect::Rejected)
      expected = {Bytes(element_count(out.sizes).value_or(0) * element_size(out.type), std::byte{0})};
    HandOracle oracle(expected);
    Runner runner(backend, oracle, with_binding_sizes({}, binding_bytes_));
    const CaseReport r = test::judge(runner, c);
    SCOPED_TRACE("outcome " + std::string(name(r.outcome)) + ": " + r.detail);
    if (expect_ == Expect::Rejected) {
      EXPECT_EQ(r.exec.status, Status::InvalidArgument) << "expected a rejection naming " << rule_;
      if (backend.reports_rules()) {
        EXPECT_TRUE(has_rule(r.exec.violations, rule_))
            << "expected " << rule_ << " among the violations: " << describe(r.exec.violations);
      }
      // A valid descriptor whose binding is too small is rejected too; the runner calls that a
      // failed valid case, and nothing worse happened when that is all it says.
      const bool only_the_status =
          r.outcome == Outcome::Failed && r.detail.starts_with("valid case got status");
      EXPECT_TRUE(r.outcome == Outcome::Passed || only_the_status);
      return;
    }
    ASSERT_EQ(r.exec.status, Status::Ok) << r.exec.message << " " << describe(r.exec.violations);
    EXPECT_EQ(r.outcome, Outcome::Passed)
        << "expected " << describe(out.type, expected.front()) << "\n  actual   "
        << describe(out.type, r.output.value_or(Bytes{}));
  }

 protected:
  struct TensorSpec {
    std::optional<DataType> type;
    Sizes sizes;
    std::optional<std::vector<uint32_t>> strides;
    std::optional<uint64_t> total_bytes;
    Values data;
  };
  const TensorSpec& spec(Role r) const {
    static const TensorSpec kEmpty;
    auto it = spec_.find(r);
    return it == spec_.end() ? kEmpty : it->second;
  }
  bool has_sizes(Role r) const { return !spec(r).sizes.empty(); }
  DataType data_type() const { return type_; }
  // The descriptor for a role: its own settings, else the given defaults; total_bytes defaults
  // to the minimum implied size.
  TensorDesc make_tensor(Role r, DataType default_type, Sizes default_sizes = {}) const {
    const TensorSpec& s = spec(r);
    TensorDesc t;
    t.type = s.type.value_or(default_type);
    t.sizes = s.sizes.empty() ? std::move(default_sizes) : s.sizes;
    t.strides = s.strides;
    t.total_bytes = s.total_bytes ? *s.total_bytes : min_implied_bytes(t).value_or(0);
    return t;
  }
  Derived& self() { return static_cast<Derived&>(*this); }
  template <class F, class V>
  Derived& set(F& field, V&& v) {
    field = std::forward<V>(v);
    return self();
  }

 private:
  enum class Expect { Output, Rejected };

  FeatureLevel level_ = FeatureLevel::L5_0;
  DataType type_ = DataType::FLOAT32;
  std::map<Role, TensorSpec> spec_;
  std::map<Role, uint64_t> binding_bytes_;
  Expect expect_ = Expect::Output;
  std::vector<Values> candidates_;
  bool float_reduction_ = false;
  std::string rule_;
};

// One row of a case table: a name (letters, digits and underscores: it becomes the test name)
// and the tester.
template <class Tester>
struct NamedCase {
  std::string name;
  Tester tester;
};
template <class Tester>
std::string case_name(const ::testing::TestParamInfo<NamedCase<Tester>>& info) {
  return info.param.name;
}
template <class Tester>
void PrintTo(const NamedCase<Tester>& c, std::ostream* os) {
  *os << c.name;
}

// The reference oracle's admissible outputs for a tester's case must be exactly `expected` (in any order):
// one result for a valid case, every admissible result for a class U case, none when docs/semantics.md
// lists none.
template <class Tester>
struct AdmissibleCase {
  std::string name;
  Tester tester;
  std::vector<Values> expected;
};
template <class Tester>
std::string admissible_case_name(const ::testing::TestParamInfo<AdmissibleCase<Tester>>& info) {
  return info.param.name;
}
template <class Tester>
void PrintTo(const AdmissibleCase<Tester>& c, std::ostream* os) {
  *os << c.name;
}
template <class Tester>
void check_admissible(const AdmissibleCase<Tester>& c) {
  const OperatorDesc d = c.tester.desc();
  const DataType t = tensor(d, Role::OUTPUT)->type;
  Case kase;
  kase.op = d;
  kase.level = c.tester.feature_level();
  kase.data = c.tester.data();
  const Classification cls = classify(kase.op, kase.level, kase.data);
  std::string why;
  const std::vector<Bytes> got =
      reference::make_oracle()->admissible_outputs(kase, cls, &why).value_or(std::vector<Bytes>{});
  EXPECT_EQ(got.size(), c.expected.size()) << "number of admissible outputs";
  for (const Values& v : c.expected) {
    const Bytes want = v.encode(t);
    EXPECT_NE(std::find(got.begin(), got.end(), want), got.end())
        << "missing admissible output " << describe(t, want);
  }
}

}  // namespace dmlcert::test
