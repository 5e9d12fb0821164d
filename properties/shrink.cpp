// Deterministic sampling of a generator outside a property, and a time-capped greedy shrinker
// for failures found that way (`dmlcert fuzz`, the self-test).
#include <chrono>

#include "build.h"
#include "dmlcert/validate.h"

namespace dmlcert::props {

rc::Shrinkable<Case> sample(const rc::Gen<Case>& gen, uint64_t seed, int size) {
  return gen(rc::Random(seed), size);
}

Case shrink_failure(const rc::Shrinkable<Case>& failing, const std::function<bool(const Case&)>& still_fails,
                    double max_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
  rc::Shrinkable<Case> current = failing;
  Case best = current.value();
  bool progressed = true;
  // Greedy descent: take the first shrink that still fails, then look at its shrinks. The
  // shrinks come smallest first (fewer dimensions, smaller sizes, simpler data), so this ends
  // near a local minimum quickly.
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
      if (still_fails(candidate)) {
        current = *next;
        best = std::move(candidate);
        progressed = true;
        break;
      }
    }
  }
  // Two last steps, each taken only while the case keeps its class and findings and still fails.
  const Classification kind = classify(best.op, best.level, best.data);
  auto keeps_failing = [&](const Case& c) {
    const Classification its = classify(c.op, c.level, c.data);
    return its.case_class == kind.case_class && its.rule_list() == kind.rule_list() && still_fails(c);
  };
  // A cell's cases keep its rank: leading dimensions of 1 everywhere are what it pads a smaller
  // case with, and they go.
  while (Clock::now() < deadline) {
    Case squeezed = best;
    if (!drop_leading_unit_dim_everywhere(squeezed) || !keeps_failing(squeezed)) break;
    best = std::move(squeezed);
  }
  // The shrinks leave whatever stride was drawn on a dimension that shrank to 1 (2147483648 there
  // reads like part of the finding), and strides that equal packed ones.
  if (Case tidy = best; Clock::now() < deadline && tidy_strides(tidy) && keeps_failing(tidy))
    best = std::move(tidy);
  return best;
}

}  // namespace dmlcert::props
