// The memory a case runs in: the one place that allocates the buffers bound to a backend, so
// that guarded allocation (read-only input pages, a no-access page after the output) can replace
// it without touching the runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"

namespace dmlcert {

// Every output byte holds this before the call, so that "wrote no output byte" (class I) can
// be checked.
inline constexpr std::byte kOutputFill{0xA5};

// An invalid case runs nothing, so its bindings need not be as large as its (possibly absurd)
// declared sizes: they are cut to this, and each binding's real size tells the backend so.
// Filling and checking gigabytes for every such case would dominate a run.
inline constexpr uint64_t kInvalidCaseBindingCap = uint64_t{16} << 20;

class CaseBuffers {
 public:
  virtual ~CaseBuffers() = default;
  // What the backend is given: each binding's pointer and real size.
  virtual Bindings bindings() = 0;
  // The logical output, read through the output descriptor's strides.
  virtual Bytes output() const = 0;
  // Whether every output byte still holds kOutputFill.
  virtual bool output_untouched() const = 0;
  // Whether the input bindings still hold what was placed in them.
  virtual bool inputs_intact() const = 0;
};

// Allocates and fills the bindings of every role of the case's operator: each is
// min(TotalTensorSizeInBytes, max_bytes) bytes (and at most kInvalidCaseBindingCap for invalid
// cases); inputs hold the case's data placed through the
// descriptors' strides (to_memory), the output holds kOutputFill. Returns nullptr and says why
// when a binding of a case that is not invalid would be cut short by max_bytes (such a case
// cannot run faithfully, and is Skipped).
std::unique_ptr<CaseBuffers> allocate_case_buffers(const Case& c, CaseClass case_class, uint64_t max_bytes,
                                                   std::string* why);

}  // namespace dmlcert
