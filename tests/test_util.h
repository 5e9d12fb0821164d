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
#include "dmlcert/dtype.h"
#include "dmlcert/operators.h"
#include "dmlcert/tensor.h"
#include "dmlcert/validate.h"
#include "reference/reference.h"

namespace dmlcert::test {

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

// One element as text: exact integers; floats with their bit pattern, so -0.0 and NaN payloads
// are visible in failure messages.
inline std::string element_text(DataType t, const std::byte* p) {
  return dispatch(t, [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    char buf[64];
    if constexpr (is_float_v<T>) {
      uint64_t bits = 0;
      std::memcpy(&bits, p, sizeof(T));
      std::snprintf(buf, sizeof buf, "%.9g(0x%" PRIx64 ")", to_double(t, p), bits);
    } else if constexpr (std::is_signed_v<T>) {
      std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(load<T>(p)));
    } else {
      std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(load<T>(p)));
    }
    return buf;
  });
}

inline std::string describe(DataType t, const Bytes& logical) {
  const std::size_t es = element_size(t);
  std::string s = "[";
  for (std::size_t i = 0; i * es < logical.size(); ++i)
    s += (i ? ", " : "") + element_text(t, logical.data() + i * es);
  return s + "]";
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
  bool guard_intact = true;      // nothing was written past the end of the output binding
  bool inputs_untouched = true;  // no input binding changed
};

inline constexpr std::byte kOutputFill{0xCD};
inline constexpr std::byte kGuardFill{0xA5};
inline constexpr std::size_t kGuardBytes = 64;

// The binding size a test uses for a tensor: its TotalTensorSizeInBytes unless overridden.
inline uint64_t binding_size(const TensorDesc& t, const std::map<Role, uint64_t>& overrides, Role r) {
  if (auto it = overrides.find(r); it != overrides.end()) return it->second;
  return t.total_bytes;
}

// Places each input's logical data in memory following its strides (to_memory), fills the output
// binding with kOutputFill and a guard zone after it, runs the backend, and reads the logical
// output back (from_memory).
inline RunOutput run_case(Backend& backend, const OperatorDesc& desc, FeatureLevel level,
                          const InputData& data, const std::map<Role, uint64_t>& binding_bytes = {}) {
  std::map<Role, Bytes> inputs;
  for (Role r : roles(op_kind(desc)))
    if (is_input_role(r))
      inputs[r] = to_memory(*tensor(desc, r), data.of(r), binding_size(*tensor(desc, r), binding_bytes, r));
  const std::map<Role, Bytes> inputs_before = inputs;

  const TensorDesc& out_desc = *tensor(desc, Role::OUTPUT);
  const uint64_t out_bytes = binding_size(out_desc, binding_bytes, Role::OUTPUT);
  Bytes output(out_bytes + kGuardBytes, kOutputFill);
  std::fill(output.begin() + static_cast<std::ptrdiff_t>(out_bytes), output.end(), kGuardFill);

  Bindings b;
  auto bind = [&](Role r) {
    auto it = inputs.find(r);
    return it == inputs.end() ? ConstBuffer{} : ConstBuffer{it->second.data(), it->second.size()};
  };
  b.input = bind(Role::INPUT);
  b.indices = bind(Role::INDICES);
  b.updates = bind(Role::UPDATES);
  b.output = MutableBuffer{output.data(), out_bytes};

  RunOutput r;
  r.exec = backend.execute(desc, level, b);
  for (uint64_t i = 0; i < output.size(); ++i) {
    if (i < out_bytes && output[i] != kOutputFill) r.output_untouched = false;
    if (i >= out_bytes && output[i] != kGuardFill) r.guard_intact = false;
  }
  r.inputs_untouched = inputs == inputs_before;
  r.output = from_memory(out_desc, std::span<const std::byte>(output.data(), out_bytes));
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
