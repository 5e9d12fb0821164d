// The reference backend: naive, one file per operator, each reading like the seed's pseudocode
// over logical coordinates. It is the oracle every other backend is judged against.
#pragma once

#include <memory>

#include "dmlcert/backend.h"

namespace dmlcert::reference {

std::unique_ptr<Backend> make_backend();

// One entry point per operator (one file each). They assume the descriptor already passed
// validation and that the bindings are at least as large as the descriptors' minimum sizes.
ExecResult slice(const SliceDesc& d, const Bindings& b);
ExecResult slice1(const Slice1Desc& d, const Bindings& b);
ExecResult scatter_nd(const ScatterNdDesc& d, FeatureLevel level, const Bindings& b);
ExecResult reduce(const ReduceDesc& d, const Bindings& b);
ExecResult gather_elements(const GatherElementsDesc& d, FeatureLevel level, const Bindings& b);

// The admissible logical outputs for a descriptor the validator did not find invalid, with its
// data: exactly one for a valid case; for a class U case every admissible result SPEC.md lists
// (an element passes when it equals that element of any of them: SCATTER_ND duplicates, NaN
// propagating or ignoring MIN/MAX/ARG*); none when SPEC.md lists no admissible result.
std::vector<Bytes> admissible_outputs(const OperatorDesc& desc, FeatureLevel level, const InputData& data);

}  // namespace dmlcert::reference
