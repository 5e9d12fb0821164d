// The reference backend: naive, one file per operator, each reading like the seed's pseudocode
// over logical coordinates. It is the oracle every other backend is judged against.
#pragma once

#include <memory>

#include "dmlcert/backend.h"
#include "dmlcert/runner.h"

namespace dmlcert::reference {

// The reference as a Backend: it validates, checks the bindings, and runs the operator.
std::unique_ptr<Backend> make_backend();

// The reference as the oracle of a run: the output of a valid case, and every admissible output
// of a class U case (one per reading its rules admit, docs/rules.md).
std::unique_ptr<Oracle> make_oracle();

}  // namespace dmlcert::reference
