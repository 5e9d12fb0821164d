#include "dmlcert/compare.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <variant>

#include "dmlcert/reduce_bounds.h"
#include "dmlcert/values.h"

namespace dmlcert {
namespace {

constexpr size_t kReportedMismatches = 5;

bool element_matches(DataType t, const std::byte* expected, const std::byte* actual, double bound,
                     const Range* range, const Expectation& e) {
  const size_t es = element_size(t);
  if (std::memcmp(expected, actual, es) == 0) return true;
  const double want = to_double(t, expected), got = to_double(t, actual);
  if (is_float(t)) {
    if (e.nan_equal && std::isnan(want) && std::isnan(got)) return true;
    if (e.zero_signs_equal && want == 0 && got == 0) return true;
  }
  if (range) return got >= range->lo && got <= range->hi;
  if (bound <= 0 || std::isnan(got) || std::isnan(want)) return false;
  if (std::isinf(bound)) return true;  // the data does not determine this element
  return std::isfinite(want) && std::isfinite(got) && std::fabs(got - want) <= bound;
}

// The bounds a case's tolerance override asks for: {"ulp": N} is N ulps of the output type at
// the expected value, {"abs": a, "rel": r} is a + r*|expected|; with both, the larger applies.
std::vector<double> tolerance_bounds(const Tolerance& tol, DataType out, const Bytes& expected) {
  const size_t es = element_size(out);
  std::vector<double> bounds(expected.size() / es, 0);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const double v = to_double(out, expected.data() + i * es);
    double b = 0;
    if (tol.ulp) b = static_cast<double>(*tol.ulp) * ulp(out, v);
    if (tol.abs || tol.rel) b = std::max(b, tol.abs.value_or(0) + tol.rel.value_or(0) * std::fabs(v));
    bounds[i] = b;
  }
  return bounds;
}

// An interval's bound as the output type's elements are spelled (values.h), so that expected,
// got and the interval read alike; the bounds are values of the type (docs/semantics.md rounds
// x-E and x+E to it), else the bound is printed in full.
std::string bound_text(DataType t, double v) {
  std::byte element[8];
  if (!decode_element(t, nlohmann::json(v), element)) return element_text(t, element);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string CompareResult::summary() const {
  if (ok) return "all " + std::to_string(compared) + " elements match";
  std::string s = std::to_string(mismatches) + " of " + std::to_string(compared) + " elements differ";
  for (size_t i = 0; i < first.size(); ++i) {
    const Mismatch& m = first[i];
    s += i == 0 ? "; first at [" : "; at [";
    for (size_t j = 0; j < m.coord.size(); ++j) {
      if (j) s += ',';
      s += std::to_string(m.coord[j]);
    }
    s += "]: expected " + m.expected + ", got " + m.actual;
    if (m.range) {
      s += " (admissible " + m.range_text + ")";
    } else if (m.bound > 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " (bound %.3g)", m.bound);
      s += buf;
    }
  }
  return s;
}

CompareResult compare(const TensorDesc& output, const Expectation& expected, const Bytes& actual) {
  CompareResult r;
  if (expected.candidates.empty()) return r;
  const size_t es = element_size(output.type);
  const uint64_t count = expected.candidates.front().size() / es;
  r.compared = count;
  for (uint64_t i = 0; i < count; ++i) {
    const double bound = i < expected.bounds.size() ? expected.bounds[i] : 0;
    const Range* range =
        i < expected.ranges.size() && expected.ranges[i].known() ? &expected.ranges[i] : nullptr;
    const bool present = (i + 1) * es <= actual.size();
    bool ok = false;
    for (const Bytes& candidate : expected.candidates) {
      if (present && (i + 1) * es <= candidate.size() &&
          element_matches(output.type, candidate.data() + i * es, actual.data() + i * es, bound, range,
                          expected)) {
        ok = true;
        break;
      }
    }
    if (ok) continue;
    r.ok = false;
    if (++r.mismatches > kReportedMismatches) continue;
    Mismatch m{
        i,
        unravel(i, output.sizes),
        element_text(output.type, expected.candidates.front().data() + i * es),
        present ? element_text(output.type, actual.data() + i * es) : "nothing",
        bound,
        range ? std::optional<Range>(*range) : std::nullopt,
        range ? "[" + bound_text(output.type, range->lo) + ", " + bound_text(output.type, range->hi) + "]"
              : std::string()};
    if (expected.candidates.size() > 1)
      m.expected =
          "one of " + std::to_string(expected.candidates.size()) + " admissible values, e.g. " + m.expected;
    r.first.push_back(std::move(m));
  }
  return r;
}

Expectation expectation_for(const Case& c, const Bytes& reference_output, AccumulationProfile profile) {
  Expectation e;
  e.candidates.push_back(reference_output);
  // An operator whose results are not bit-exact says how to judge them (REDUCE's float bounds).
  visit(c.op, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    if constexpr (requires { D::refine_expectation(d, c.data, profile, e); })
      D::refine_expectation(d, c.data, profile, e);
  });
  if (c.tolerance) {
    if (const TensorDesc* out = tensor(c.op, Role::OUTPUT)) {
      e.bounds = tolerance_bounds(*c.tolerance, out->type, reference_output);
      e.ranges.clear();  // the case's own tolerance replaces the computed model
    }
  }
  return e;
}

}  // namespace dmlcert
