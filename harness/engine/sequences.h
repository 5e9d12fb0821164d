// Related cases run back to back in one backend process (docs/design.md, "Certification"). A backend
// that keeps state between calls (a plan cache keyed on the sizes, a scratch buffer sized by an
// earlier call, an accumulator that is not cleared) answers one case right and a related one
// wrong; only the second call of a related pair shows it. A family starts from one generated
// case and asks the backend, in order, for cases that share its shape and differ in one thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmlcert/support.h"
#include "generators.h"

namespace dmlcert::engine {

struct RelatedCase {
  std::string name;  // "small", "base", "again", "layout-1", "type-INT8", "data-1", "at-3_0", "large"
  rc::Gen<Case> gen;
  int size = 0;
  // The cell a valid case of this member exercises (another type's cell for a type member); a
  // member asked at another level may be invalid or class U there instead.
  SupportCell cell;
};

// The family of one generated case of `cell` at `level` with `mode` data, every member sampled at
// the same seed: a smaller case of the same generator first (sizes that grow), the case, the same
// case again, the same shape with other layouts, with another data type of the cell's role, with
// other data, the same case asked at other feature levels up to `max_level` (classified there),
// and a larger case last. `pick` chooses the other types, levels and salts.
std::vector<RelatedCase> related_cases(const SupportCell& cell, FeatureLevel level, props::DataMode mode,
                                       int size, uint64_t pick, FeatureLevel max_level);

}  // namespace dmlcert::engine
