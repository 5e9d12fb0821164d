// The memory a case runs in: the bindings handed to a backend and the checks made on them after
// the call. One interface, two implementations: heap buffers checked by comparison (here), and
// guarded pages (backends/plugin/guarded_buffers.h: read-only inputs, a no-access page after
// every binding) used by the isolation child and the tests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"

namespace dmlcert {

// Every output byte, padding included, holds this before the call, so that "a rejection writes
// no output byte" (docs/semantics.md, "Three classes of case") can be checked.
inline constexpr std::byte kOutputFill{0xA5};

// Whether every byte of [p, p + n) is b. Compares the range with itself one byte on, which the C
// library's memcmp does a vector at a time: the byte loops it replaced (inputs, output fill,
// guards) took an eighth of a fuzz run's time.
inline bool all_bytes_are(const std::byte* p, uint64_t n, std::byte b) {
  return n == 0 || (p[0] == b && std::memcmp(p, p + 1, n - 1) == 0);
}

// An invalid case runs nothing, so its bindings need not be as large as its (possibly absurd)
// declared sizes: they are cut to this, and each binding's real size tells the backend so.
// Filling and checking gigabytes for every such case would dominate a run. 1 MiB still holds the
// first write of a backend that writes before it validates (which is where such a write lands);
// at 16 MiB, filling, copying and checking these bindings took about an eighth of a fuzz run
// (optimized against the reference, 200,000 cases: 10,100 cases/s, 11,600 at 1 MiB).
inline constexpr uint64_t kInvalidCaseBindingCap = uint64_t{1} << 20;

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
  // Whether nothing was written just past the end of a binding (heap buffers keep guard bytes
  // there; guarded pages fault instead).
  virtual bool guards_intact() const = 0;
};

// The size each role's binding gets: min(TotalTensorSizeInBytes, max_bytes), and at most
// kInvalidCaseBindingCap for invalid cases. nullopt, with the reason, when a binding of a case
// that is not invalid would be cut short (such a case cannot run faithfully and is skipped).
std::optional<std::array<uint64_t, kRoleCount>> binding_sizes(const Case& c, CaseClass case_class,
                                                              uint64_t max_bytes, std::string* why);
// A role's input memory: the case's logical data placed through the descriptor's strides, in a
// zeroed buffer of `bytes` (with room for `spare_capacity` more, as to_memory).
Bytes input_memory(const TensorDesc& t, const Bytes& logical, uint64_t bytes, uint64_t spare_capacity = 0);

// What running a case may cost in memory, estimated from its descriptors before anything is
// allocated (docs/design.md, "Memory"). Every binding is held up to four times: the bindings the
// backend under test gets, the pristine copies its inputs are checked against, the oracle's own
// bindings and, isolated, the child's mapping; the logical output twice more (the backend's,
// read back, and the oracle's), the case's own input data once, what the oracle works in besides
// its bindings (an operator's oracle_bytes(): REDUCE lists every group's elements), and a guard
// page follows every binding. A broadcast input binds a few lines but its data lists every
// logical element, and the oracle walks them all: planned like the bindings.
struct CaseFootprint {
  uint64_t bindings = 0;        // the sum of the bindings' sizes (TotalTensorSizeInBytes, capped)
  uint64_t logical_output = 0;  // the output's element count times its element size
  uint64_t logical_inputs = 0;  // the case's input data (logical elements)
  uint64_t oracle = 0;          // the oracle's working memory besides its bindings
  uint64_t total = 0;           // the estimate; saturates at UINT64_MAX
  // "needs about 4.0 GiB (bindings 1.0 GiB: input 1.0 GiB, output 16 B)", for a skip message.
  std::string describe(const Case& c) const;
};
inline constexpr uint64_t kFootprintBindingCopies = 4;
inline constexpr uint64_t kFootprintOutputCopies = 2;
inline constexpr uint64_t kFootprintGuardBytes = 4096;
CaseFootprint case_footprint(const Case& c, CaseClass case_class);

// Heap buffers: inputs hold the case's data placed through the descriptors' strides, the output
// holds kOutputFill, and kHeapGuardBytes of a known pattern follow every binding. Checks are by
// comparison after the call, so a stray write is found but not stopped.
inline constexpr uint64_t kHeapGuardBytes = 64;
std::unique_ptr<CaseBuffers> allocate_case_buffers(const Case& c, CaseClass case_class, uint64_t max_bytes,
                                                   std::string* why);

}  // namespace dmlcert
