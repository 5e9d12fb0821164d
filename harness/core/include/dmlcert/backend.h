// The C++ backend interface. Built-in backends (reference, optimized), plugins behind the C ABI
// and test doubles all implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/code_coverage.h"
#include "dmlcert/feature_level.h"
#include "dmlcert/findings.h"
#include "dmlcert/operators.h"

namespace dmlcert {

enum class Status { Ok, InvalidArgument, Unsupported, Error };
std::string_view name(Status s);

// A buffer binding: the memory the backend may touch, which is [data, data + size). `size` is
// the binding's real size; it equals the tensor's TotalTensorSizeInBytes except for invalid
// descriptors whose declared size is too large to allocate.
struct ConstBuffer {
  const std::byte* data = nullptr;
  uint64_t size = 0;
};
struct MutableBuffer {
  std::byte* data = nullptr;
  uint64_t size = 0;
};
struct Bindings {
  ConstBuffer input, indices, updates;
  MutableBuffer output;
  // A role's binding, read-only (the output's too), and an input role's, set: with these two, a
  // role becomes a member in one place (status.cpp).
  ConstBuffer of(Role r) const;
  void set_input(Role r, ConstBuffer b);
};

// What the harness saw go wrong around a call, beyond the status the backend returned.
enum class Fault {
  None,
  Crash,         // the backend's process died (signal, abort, exit)
  Timeout,       // the call did not return within its deadline
  OutOfBounds,   // a read or write outside a binding, or a canary before an output changed
  InputWritten,  // a write to an input binding
  LateWrite,     // a write into a binding after the call had returned
  Limit,         // the backend's process went over its memory or CPU-time limit
};
std::string_view name(Fault f);

// A fault found after its call had returned and been judged (a thread left running wrote into
// the call's bindings later on, or crashed the process). Reported with the next call of the same backend
// process; the call it belongs to is named by its sequence number.
struct LateFault {
  uint64_t call = 0;
  Fault fault = Fault::LateWrite;  // or Crash: the process died after the call had returned
  std::string message;
  // Whether the backend's process ended with it, and with it any thread another call had left
  // running (a crash does; an isolated backend survives a late write).
  bool ended_process = true;
};

struct ExecResult {
  Status status = Status::Ok;
  Fault fault = Fault::None;
  std::string message;
  // Built-in backends say which rules a rejected descriptor broke; plugins may leave it empty.
  std::vector<Violation> violations;
  // Isolated backends: this call's sequence number, what the backend printed during it (capped),
  // and the late faults of earlier calls that came to light with it.
  uint64_t call = 0;
  std::string output_text;
  uint64_t output_dropped = 0;  // bytes printed beyond the cap
  std::vector<LateFault> late;
  // The backend was never asked: its interface cannot carry this case (a C ABI plugin cannot be
  // given strides of another length than its sizes, say). The status is the boundary's own.
  bool not_asked = false;
  // Isolated backends: the call's wall time, from the request to the answer (a slow backend is
  // reported with its time per call).
  double seconds = 0;
  // Isolated backends: what the backend did to its process around this call (or, with the first
  // call, while loading) that the harness undid: its fault handlers replaced. The robustness check
  // BACKEND.SIGNAL_HANDLERS; empty when nothing.
  std::string interference;
  // Isolated backends with an instrumented plugin: how many edges of its code this call reached
  // that no call before it had (code_coverage.h).
  uint32_t new_edges = 0;
};

// A result with only a status, a fault and a message.
inline ExecResult exec_result(Status status, Fault fault, std::string message) {
  ExecResult r;
  r.status = status;
  r.fault = fault;
  r.message = std::move(message);
  return r;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The highest feature level the backend claims.
  virtual FeatureLevel max_feature_level() const = 0;
  // Whether the backend implements (op, function, data type of the op's main input). `function`
  // is nullopt for operators other than REDUCE.
  virtual bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const = 0;
  // Whether the backend takes index tensors of `index_type` for `op` (its INDICES tensor, or
  // REDUCE ARGMIN/ARGMAX's output): a backend that takes INT32 indices only leaves the other index
  // types outside its scope (dmlcert_backend_abi.h, implements_index_type). Every type, unless said.
  virtual bool implements_index_type(OpKind op, DataType index_type) const {
    (void)op;
    (void)index_type;
    return true;
  }
  // Whether rejections carry rule IDs in ExecResult::violations (built-ins do, plugins need not).
  virtual bool reports_rules() const { return false; }
  virtual ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& buffers) = 0;
  // Waits up to `seconds` after the last call for late faults (a thread the backend left
  // running that writes into the call's bindings later). Isolated backends can tell; in-process
  // backends cannot and say nothing. Used where a failure is confirmed or replayed alone, with no
  // later call to reveal the fault.
  virtual std::vector<LateFault> settle(double seconds) {
    (void)seconds;
    return {};
  }
  // The edges of the backend's own code its calls reached so far (code_coverage.h); nullptr when
  // the backend cannot tell (an in-process backend). An isolated backend always answers, saying
  // why when its plugin has no counters.
  virtual const CodeCoverage* code_coverage() const { return nullptr; }
  // Ends the backend now, as its last user would, and says what went wrong doing so (an isolated
  // backend's process that crashed in its destroy function); empty when nothing did. No call may
  // follow.
  virtual std::string shut_down() { return {}; }
};

// T.TOTAL_BYTES for the bindings a backend was given: every tensor's binding must be present and
// hold the tensor's minimum implied size, which is as far as an operator reads or writes.
std::vector<Violation> binding_violations(const OperatorDesc& desc, const Bindings& b);

}  // namespace dmlcert
