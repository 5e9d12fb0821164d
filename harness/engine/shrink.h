// A time-capped greedy shrinker for the failures of generated cases (docs/design.md, "The engine",
// step 4).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>

#include "dmlcert/case.h"
#include "dmlcert/validate.h"

namespace dmlcert::engine {

// Shrinks a failing case (classified as `failing_cls`): walks the shrink tree greedily, keeping the
// first smaller case for which `still_fails` holds, until no shrink fails or `max_seconds` pass (so a
// slow backend cannot stall it), then squeezes out leading dimensions of 1 and tidies the strides
// where the case keeps its class and its failure. Every candidate is classified once, here, and
// handed to `still_fails` with its classification; `tried` hears of each, whether it failed or not
// (a squeeze that changes the class is not run). Returns the smallest failing case found.
using ShrinkObserver = std::function<void(const Case&, const Classification&, bool still_fails)>;
Case shrink_failure(const rc::Shrinkable<Case>& failing, const Classification& failing_cls,
                    const std::function<bool(const Case&, const Classification&)>& still_fails,
                    double max_seconds, const ShrinkObserver& tried = {});

}  // namespace dmlcert::engine
