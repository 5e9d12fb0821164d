// Why a case that a backend rejected is valid: the reason a vendor needs before arguing with a
// "valid case got status invalid-argument" failure (docs/rules.md).
#pragma once

#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"

namespace dmlcert {

// One sentence, for a case classify() finds valid at its level: each catalog rule the backend
// named (in its violations or its message) with the rule's text, since the case keeps it; and the
// level that made the case valid, with the rule it breaks one table level below ("valid from 3_0;
// at 2_1 it breaks GATHERELEMENTS.INDEX_RANGE: ..."), or that it is valid at every level.
std::string why_valid(const Case& c, const ExecResult& rejected);

}  // namespace dmlcert
