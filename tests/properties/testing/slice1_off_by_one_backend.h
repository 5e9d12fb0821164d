// A backend for testing the property suite itself: the reference backend with one injected bug.
// SLICE1 with a negative stride starts one element early in that dimension (CopyStart =
// InputWindowOffsets + InputWindowSizes - 2 instead of - 1, clamped to stay inside the input), the
// classic off-by-one of reversing a window. Compiled only into the property tests.
#pragma once

#include <memory>

#include "dmlcert/backend.h"

namespace dmlcert::props::proptest {

std::unique_ptr<Backend> make_slice1_off_by_one_backend();

}  // namespace dmlcert::props::proptest
