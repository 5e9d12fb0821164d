// The reference as a run's oracle (docs/design.md, "One case"). It trusts the classification it
// is given (the case is not invalid) and runs the operators directly on buffers of the minimum
// implied sizes, once per reading the case's class U rules admit.
#include <algorithm>

#include "dmlcert/case_buffers.h"
#include "dmlcert/rules.h"
#include "reference/internal.h"
#include "reference/reference.h"

namespace dmlcert::reference {
namespace {

// The operator's output under one reading, or nullopt when the reading does not apply.
std::optional<Bytes> output_under(const Case& c, Reading reading, std::string* why) {
  std::array<Bytes, kRoleCount> memory;
  Bindings b;
  for (Role r : roles(op_kind(c.op))) {
    const TensorDesc& t = *tensor(c.op, r);
    const uint64_t bytes = min_implied_bytes(t).value_or(0);
    Bytes& m = memory[static_cast<size_t>(r)];
    m = is_input_role(r) ? input_memory(t, c.data.of(r), bytes) : Bytes(bytes, std::byte{0});
    if (r == Role::OUTPUT)
      b.output = {m.data(), m.size()};
    else
      b.set_input(r, {m.data(), m.size()});
  }
  const ExecResult result =
      visit(c.op, [&](const auto& d) { return reference::compute(d, c.level, b, reading); });
  if (result.status == Status::Unsupported) return std::nullopt;
  if (result.status != Status::Ok) {
    *why = "the reference backend did not execute this case: " + std::string(name(result.status)) +
           (result.message.empty() ? "" : ": " + result.message);
    return std::nullopt;
  }
  return from_memory(*tensor(c.op, Role::OUTPUT), memory[static_cast<size_t>(Role::OUTPUT)]);
}

class ReferenceOracle final : public Oracle {
 public:
  std::optional<std::vector<Bytes>> admissible_outputs(const Case& c, const Classification& cls,
                                                       std::string* why) override {
    if (cls.case_class == CaseClass::Invalid) {
      *why = "an invalid case has no output (" + cls.rule_list() + ")";
      return std::nullopt;
    }
    std::vector<Behaviour> readings;
    for (const Violation& v : cls.findings) {
      const Rule* rule = find_rule(v.rule);
      if (!rule) continue;
      if (rule->admits == Admits::Anything) return std::vector<Bytes>{};
      if (rule->admits == Admits::Readings)
        for (Behaviour b : rule->readings)
          if (std::find(readings.begin(), readings.end(), b) == readings.end()) readings.push_back(b);
    }
    if (readings.empty()) readings.push_back(Behaviour::Specified);

    std::vector<Bytes> outputs;
    auto keep = [&](Bytes out) {
      if (std::find(outputs.begin(), outputs.end(), out) == outputs.end()) outputs.push_back(std::move(out));
    };
    for (Behaviour b : readings) {
      // NthWriteWins counts up until no element has that many competing writes.
      for (uint32_t nth = 0;; ++nth) {
        std::string error;
        auto out = output_under(c, Reading{b, nth}, &error);
        if (!error.empty()) {
          *why = error;
          return std::nullopt;
        }
        if (!out) break;
        keep(std::move(*out));
        if (b != Behaviour::NthWriteWins) break;
      }
    }
    // Every reading declined (NaN readings of a SUM): the rules give no result for this case.
    return outputs;
  }

  std::vector<Labelled> profile_outputs(const Case& c, const Classification& cls) override {
    std::vector<Labelled> out;
    for (const Violation& v : cls.findings) {
      const Rule* rule = find_rule(v.rule);
      if (!rule) continue;
      for (const ProfileReading& p : rule->profile) {
        std::string ignored;
        if (auto output = output_under(c, p.reading, &ignored))
          out.push_back({std::string(p.label), std::move(*output)});
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Oracle> make_oracle() {
  return std::make_unique<ReferenceOracle>();
}

}  // namespace dmlcert::reference
