// Index data of SCATTER_ND and GATHER_ELEMENTS (SCATTERND.INDEX_RANGE, GATHERELEMENTS.INDEX_RANGE):
// values in [0, d) address themselves; from feature level 3_0 a signed index type may also hold
// -d..-1, meaning d + value. The one statement of that rule, for the validator, the backends and
// the generators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "dmlcert/behaviour.h"
#include "dmlcert/dtype.h"
#include "dmlcert/feature_level.h"

namespace dmlcert {

bool negative_indices_allowed(DataType index_type, FeatureLevel level);
// The exact value of an integer element, or nullopt for a float type.
std::optional<__int128> integer_value(DataType type, const std::byte* p);
// The position an index value addresses in a dimension of size d, or nullopt when out of range.
std::optional<uint32_t> resolve_index(__int128 value, uint32_t d, bool negative_allowed);
// The same under a reading: IndexClamped and IndexWrapped place an out-of-range value anyway
// (clamped into [0, d), or modulo d); any other reading is resolve_index.
std::optional<uint32_t> resolve_index_as(__int128 value, uint32_t d, bool negative_allowed,
                                         Behaviour reading);
// "[0, 5)" or "[-5, 5)".
std::string index_range_text(uint32_t d, bool negative_allowed);
std::string to_string(__int128 v);

}  // namespace dmlcert
