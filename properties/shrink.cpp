// Deterministic sampling of a generator outside a property, and a time-capped greedy shrinker
// for failures found that way (`dmlcert fuzz`, the self-test).
#include <chrono>

#include "build.h"
#include "dmlcert/validate.h"

namespace dmlcert::props {

rc::Shrinkable<Case> sample(const rc::Gen<Case>& gen, uint64_t seed, int size) {
  return gen(rc::Random(seed), size);
}

namespace {

// Elements over every tensor of the case, saturating.
uint64_t elements(const Case& c) {
  uint64_t total = 0;
  for (Role r : roles(op_kind(c.op))) {
    const uint64_t n = element_count(tensor(c.op, r)->sizes).value_or(UINT64_MAX);
    total = n > UINT64_MAX - total ? UINT64_MAX : total + n;
  }
  return total;
}

}  // namespace

Case shrink_failure(const rc::Shrinkable<Case>& failing, const std::function<bool(const Case&)>& still_fails,
                    double max_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  rc::Shrinkable<Case> current = failing;
  Case best = current.value();
  const bool invalid = classify(best.op, best.level, best.data).case_class == CaseClass::Invalid;
  bool progressed = true;
  // Greedy descent: take the first shrink that still fails, then look at its shrinks. The
  // shrinks come smallest first (fewer dimensions, smaller sizes, simpler data), so this ends
  // near a local minimum quickly. For an invalid case a shrink with more elements is passed over:
  // an invalid case is a valid one mutated, and a shrink of the valid one can come out larger once
  // mutated again (a SLICE went from 9 output elements at rank 5 to 90 at rank 4, where the time
  // ran out). Valid and unspecified cases take such a shrink: there it is how a rank goes.
  while (progressed && Clock::now() < deadline) {
    progressed = false;
    auto shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (Clock::now() >= deadline) break;
      Case candidate;
      try {
        candidate = next->value();
      } catch (const std::exception&) {
        continue;  // a shrink the generator cannot realize (e.g. suchThat gave up)
      }
      if (invalid && elements(candidate) > elements(best)) continue;
      if (still_fails(candidate)) {
        current = *next;
        best = std::move(candidate);
        progressed = true;
        break;
      }
    }
  }
  // Two last steps, each taken only where the case keeps its class and findings and still fails,
  // and taken even past the deadline (at most one run per dimension, and one more), so that the
  // repro does not depend on how fast the machine ran the greedy descent.
  const Classification kind = classify(best.op, best.level, best.data);
  auto keeps_failing = [&](const Case& c) {
    const Classification its = classify(c.op, c.level, c.data);
    return its.case_class == kind.case_class && its.rule_list() == kind.rule_list() && still_fails(c);
  };
  // A cell's cases keep its rank: leading dimensions of 1 everywhere are what it pads a smaller
  // case with, and they go.
  for (;;) {
    Case squeezed = best;
    if (!drop_leading_unit_dim_everywhere(squeezed) || !keeps_failing(squeezed)) break;
    best = std::move(squeezed);
  }
  // The shrinks leave whatever stride was drawn on a dimension that shrank to 1 (2147483648 there
  // reads like part of the finding), and strides that equal packed ones.
  if (Case tidy = best; tidy_strides(tidy) && keeps_failing(tidy)) best = std::move(tidy);
  return best;
}

}  // namespace dmlcert::props
