// An oracle made of any backend (`fuzz --vs B`): its output judges valid cases. It computes no
// readings for class U cases, so any output of those passes.
#pragma once

#include <memory>

#include "dmlcert/runner.h"

namespace dmlcert::engine {

std::unique_ptr<Oracle> backend_oracle(Backend& backend, RunOptions options);

}  // namespace dmlcert::engine
