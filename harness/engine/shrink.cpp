#include "shrink.h"

#include <chrono>

#include "generators.h"

namespace dmlcert::engine {

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

Case shrink_failure(const rc::Shrinkable<Case>& failing, const Classification& failing_cls,
                    const std::function<bool(const Case&, const Classification&)>& still_fails,
                    double max_seconds, const ShrinkObserver& tried) {
  using Steady = std::chrono::steady_clock;
  const auto deadline = Steady::now() + std::chrono::duration_cast<Steady::duration>(
                                            std::chrono::duration<double>(max_seconds));
  rc::Shrinkable<Case> current = failing;
  Case best = current.value();
  Classification best_cls = failing_cls;
  const bool invalid = failing_cls.case_class == CaseClass::Invalid;
  bool progressed = true;
  // Greedy descent: take the first shrink that still fails, then look at its shrinks. The
  // shrinks come smallest first (fewer dimensions, smaller sizes, simpler data), so this ends
  // near a local minimum quickly. For an invalid case a shrink with more elements is passed over:
  // an invalid case is a valid one mutated, and a shrink of the valid one can come out larger once
  // mutated again (a SLICE went from 9 output elements at rank 5 to 90 at rank 4, where the time
  // ran out). Valid and unspecified cases take such a shrink: there it is how a rank goes.
  while (progressed && Steady::now() < deadline) {
    progressed = false;
    auto shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (Steady::now() >= deadline) break;
      Case candidate;
      try {
        candidate = next->value();
      } catch (const std::exception&) {
        continue;  // a shrink the generator cannot realize (e.g. suchThat gave up)
      }
      if (invalid && elements(candidate) > elements(best)) continue;
      Classification cls = classify(candidate.op, candidate.level, candidate.data);
      const bool fails = still_fails(candidate, cls);
      if (tried) tried(candidate, cls, fails);
      if (fails) {
        current = *next;
        best = std::move(candidate);
        best_cls = std::move(cls);
        progressed = true;
        break;
      }
    }
  }
  // Two last steps, each taken only where the case keeps its class and findings and still fails,
  // and taken even past the deadline (at most one run per dimension, and one more), so that the
  // repro does not depend on how fast the machine ran the greedy descent.
  const Classification kind = best_cls;
  auto keeps_failing = [&](const Case& c) {
    const Classification its = classify(c.op, c.level, c.data);
    const bool fails =
        its.case_class == kind.case_class && its.rule_list() == kind.rule_list() && still_fails(c, its);
    if (tried) tried(c, its, fails);
    return fails;
  };
  // A cell's cases keep its rank: leading dimensions of 1 everywhere are what it pads a smaller
  // case with, and they go.
  for (;;) {
    Case squeezed = best;
    if (!props::drop_leading_unit_dim_everywhere(squeezed) || !keeps_failing(squeezed)) break;
    best = std::move(squeezed);
  }
  // The shrinks leave whatever stride was drawn on a dimension that shrank to 1 (2147483648 there
  // reads like part of the finding), and strides that equal packed ones.
  if (Case tidy = best; props::tidy_strides(tidy) && keeps_failing(tidy)) best = std::move(tidy);
  return best;
}

}  // namespace dmlcert::engine
