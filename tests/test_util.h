// Shared helpers for tests that run operators through a Backend: logical test data written the
// way a reader thinks of it (numbers, exact 64-bit integers, raw bit patterns), and one call that
// places inputs in memory, runs the backend and reads the output back, noting any stray write.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/case_buffers.h"
#include "dmlcert/dtype.h"
#include "dmlcert/operators.h"
#include "dmlcert/runner.h"
#include "dmlcert/tensor.h"
#include "dmlcert/validate.h"
#include "dmlcert/values.h"
#include "reference/reference.h"

namespace dmlcert::test {

// Runs a case through the runner with its classification, as the engine does (once per case).
inline CaseReport judge(Runner& runner, const Case& c) {
  return runner.run(c, classify(c.op, c.level, c.data));
}

// Logical element values of a test tensor, in row-major order over its sizes.
class Values {
 public:
  Values() = default;
  // Numbers, rounded once to the tensor's type by from_double (FLOAT16: round_to_half).
  Values(std::initializer_list<double> v) : reals_(v) {}
  Values(std::vector<double> v) : reals_(std::move(v)) {}
  // Exact integers, for 64-bit values a double cannot hold (INT64_MIN, UINT64_MAX).
  static Values ints(std::vector<int64_t> v) {
    Values r;
    r.kind_ = Kind::Signed;
    r.signed_ = std::move(v);
    return r;
  }
  static Values uints(std::vector<uint64_t> v) {
    Values r;
    r.kind_ = Kind::Unsigned;
    r.unsigned_ = std::move(v);
    return r;
  }
  // Raw element bit patterns (NaN payloads, -0.0): the low element_size bytes of each value.
  static Values bits(std::vector<uint64_t> v) {
    Values r;
    r.kind_ = Kind::Bits;
    r.unsigned_ = std::move(v);
    return r;
  }
  // first, first+1, ... (n values): the seeds' "1, 2, 3, ..." inputs.
  static Values iota(std::size_t n, double first = 1) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = first + static_cast<double>(i);
    return Values(std::move(v));
  }

  std::size_t size() const {
    return kind_ == Kind::Real ? reals_.size() : kind_ == Kind::Signed ? signed_.size() : unsigned_.size();
  }
  bool empty() const { return size() == 0; }

  // The values as logical data of type t.
  Bytes encode(DataType t) const {
    const std::size_t es = element_size(t);
    Bytes out(size() * es);
    for (std::size_t i = 0; i < size(); ++i) {
      std::byte* p = out.data() + i * es;
      switch (kind_) {
        case Kind::Real: from_double(t, reals_[i], p); break;
        case Kind::Signed: store_integer(t, signed_[i], p); break;
        case Kind::Unsigned: store_integer(t, unsigned_[i], p); break;
        case Kind::Bits: std::memcpy(p, &unsigned_[i], es); break;  // little-endian: the low bytes
      }
    }
    return out;
  }

 private:
  enum class Kind { Real, Signed, Unsigned, Bits };
  template <class I>
  static void store_integer(DataType t, I v, std::byte* p) {
    dispatch(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_v<T>)
        from_double(t, static_cast<double>(v), p);
      else
        store<T>(p, static_cast<T>(v));
    });
  }
  Kind kind_ = Kind::Real;
  std::vector<double> reals_;
  std::vector<int64_t> signed_;
  std::vector<uint64_t> unsigned_;
};

// Elements as the case format writes them (dmlcert/values.h): exact, with NaN payloads and the
// sign of zero visible in failure messages.
inline std::string describe(DataType t, const Bytes& logical) {
  return data_text(t, logical, 1 << 20);
}

inline std::string describe(const std::vector<Violation>& vs) {
  std::string s;
  for (const Violation& v : vs) s += (s.empty() ? "" : "; ") + v.rule + " (" + v.message + ")";
  return s.empty() ? "(no violations)" : s;
}

inline bool has_rule(const std::vector<Violation>& vs, std::string_view rule) {
  for (const Violation& v : vs)
    if (v.rule == rule) return true;
  return false;
}

// What happened when a backend ran one case.
struct RunOutput {
  ExecResult exec;
  Bytes output;                  // logical output read back from memory
  bool output_untouched = true;  // the output binding still holds its fill pattern
  bool guard_intact = true;      // nothing was written past the end of a binding
  bool inputs_untouched = true;  // no input binding changed
};

// The case's bindings as the runner allocates them (heap buffers with guard bytes), with a
// binding made smaller (or larger) than its tensor's TotalTensorSizeInBytes where `binding_bytes`
// says so: the buffers are sized from a copy of the case whose declared sizes are overridden.
inline RunOptions with_binding_sizes(RunOptions options, const std::map<Role, uint64_t>& binding_bytes) {
  if (binding_bytes.empty()) return options;
  options.allocate = [binding_bytes](const Case& c, CaseClass cls, uint64_t max, std::string* why) {
    Case sized = c;
    for (const auto& [role, bytes] : binding_bytes)
      if (TensorDesc* t = tensor(sized.op, role)) t->total_bytes = bytes;
    return allocate_case_buffers(sized, cls, max, why);
  };
  return options;
}

// Places each input's logical data in memory following its strides, runs the backend on the
// bindings and reads the logical output back, noting any stray write.
inline RunOutput run_case(Backend& backend, const OperatorDesc& desc, FeatureLevel level,
                          const InputData& data, const std::map<Role, uint64_t>& binding_bytes = {}) {
  Case c;
  c.op = desc;
  c.level = level;
  c.data = data;
  const RunOptions options = with_binding_sizes({}, binding_bytes);
  std::string why;
  // Sized as for a valid case whatever the class: a test's absurd descriptors are its own business.
  auto buffers = options.allocate(c, CaseClass::Valid, options.max_buffer_bytes, &why);
  RunOutput r;
  if (!buffers) {
    ADD_FAILURE() << "cannot allocate the bindings: " << why;
    return r;
  }
  r.exec = backend.execute(desc, level, buffers->bindings());
  r.output_untouched = buffers->output_untouched();
  r.guard_intact = buffers->guards_intact();
  r.inputs_untouched = buffers->inputs_intact();
  r.output = buffers->output();
  return r;
}

// The reference backend and its oracle, made once for the whole test binary.
inline Backend& reference_backend() {
  static const std::unique_ptr<Backend> backend = reference::make_backend();
  return *backend;
}
inline Oracle& reference_oracle() {
  static const std::unique_ptr<Oracle> oracle = reference::make_oracle();
  return *oracle;
}

}  // namespace dmlcert::test
