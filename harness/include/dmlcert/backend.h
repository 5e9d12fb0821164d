// The C++ backend interface. Built-in backends (reference, optimized), plugins behind the C ABI
// and test doubles all implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/feature_level.h"
#include "dmlcert/operators.h"
#include "dmlcert/validate.h"

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
  ConstBuffer of(Role r) const;
};

// What the harness saw go wrong around a call, beyond the status the backend returned.
enum class Fault {
  None,
  Crash,        // the backend's process died (signal, abort)
  Timeout,      // the call did not return within the time limit
  OutOfBounds,  // a read or write outside a binding, or a canary before an output changed
  InputWritten, // a write to an input binding
};
std::string_view name(Fault f);

struct ExecResult {
  Status status = Status::Ok;
  Fault fault = Fault::None;
  std::string message;
  // Built-in backends say which rules a rejected descriptor broke; plugins may leave it empty.
  std::vector<Violation> violations;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The highest feature level the backend claims.
  virtual FeatureLevel max_feature_level() const = 0;
  // Whether the backend implements (op, function, data type of the op's main input). `function`
  // is nullopt for operators other than REDUCE.
  virtual bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const = 0;
  // Whether rejections carry rule IDs in ExecResult::violations (built-ins do, plugins need not).
  virtual bool reports_rules() const { return false; }
  virtual ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& buffers) = 0;
};

// "reference", "optimized" or "plugin:/path/lib.so". Returns nullptr and sets *error when the
// spec names no backend or the plugin cannot be loaded.
std::unique_ptr<Backend> make_backend(std::string_view spec, std::string* error);

}  // namespace dmlcert
