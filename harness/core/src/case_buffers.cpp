#include "dmlcert/case_buffers.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <iterator>

namespace dmlcert {
namespace {

constexpr std::byte kGuardFill{0x5A};

// Each role's memory is its binding followed by kHeapGuardBytes of kGuardFill.
class HeapCaseBuffers final : public CaseBuffers {
 public:
  explicit HeapCaseBuffers(const OperatorDesc& op) : output_desc_(*tensor(op, Role::OUTPUT)) {}

  Bindings bindings() override {
    Bindings b;
    for (Role r : kAllRoles)
      if (is_input_role(r)) b.set_input(r, {memory_[index(r)].data(), size_[index(r)]});
    b.output = {memory_[index(Role::OUTPUT)].data(), size_[index(Role::OUTPUT)]};
    return b;
  }
  Bytes output() const override {
    return from_memory(output_desc_, std::span<const std::byte>(memory_[index(Role::OUTPUT)].data(),
                                                                size_[index(Role::OUTPUT)]));
  }
  bool output_untouched() const override {
    return all_bytes_are(memory_[index(Role::OUTPUT)].data(), size_[index(Role::OUTPUT)], kOutputFill);
  }
  bool inputs_intact() const override {
    for (Role r : {Role::INPUT, Role::INDICES, Role::UPDATES}) {
      const Bytes &now = memory_[index(r)], &before = pristine_[index(r)];
      if (now.size() != before.size() ||
          (!now.empty() && std::memcmp(now.data(), before.data(), now.size()) != 0))
        return false;
    }
    return true;
  }
  bool guards_intact() const override {
    for (size_t i = 0; i < kRoleCount; ++i) {
      const Bytes& m = memory_[i];
      if (!all_bytes_are(m.data() + size_[i], m.size() - size_[i], kGuardFill)) return false;
    }
    return true;
  }

  void place_input(Role r, Bytes memory) {
    size_[index(r)] = memory.size();
    memory.resize(memory.size() + kHeapGuardBytes, kGuardFill);
    pristine_[index(r)] = memory;
    memory_[index(r)] = std::move(memory);
  }
  void place_output(uint64_t bytes) {
    size_[index(Role::OUTPUT)] = bytes;
    Bytes& out = memory_[index(Role::OUTPUT)];
    out.reserve(bytes + kHeapGuardBytes);
    out.assign(bytes, kOutputFill);
    out.resize(bytes + kHeapGuardBytes, kGuardFill);
  }

 private:
  static size_t index(Role r) { return static_cast<size_t>(r); }
  TensorDesc output_desc_;
  std::array<Bytes, kRoleCount> memory_, pristine_;
  std::array<uint64_t, kRoleCount> size_{};
};

}  // namespace

std::optional<std::array<uint64_t, kRoleCount>> binding_sizes(const Case& c, CaseClass case_class,
                                                              uint64_t max_bytes, std::string* why) {
  std::array<uint64_t, kRoleCount> sizes{};
  for (Role r : roles(op_kind(c.op))) {
    const TensorDesc& t = *tensor(c.op, r);
    if (t.total_bytes > max_bytes && case_class != CaseClass::Invalid) {
      if (why)
        *why = "tensors." + std::string(name(r)) + ".total_bytes is " + std::to_string(t.total_bytes) +
               ", more than the buffer cap of " + std::to_string(max_bytes) + " bytes";
      return std::nullopt;
    }
    const uint64_t cap =
        case_class == CaseClass::Invalid ? std::min(max_bytes, kInvalidCaseBindingCap) : max_bytes;
    sizes[static_cast<size_t>(r)] = std::min(t.total_bytes, cap);
  }
  return sizes;
}

// Data that does not match the descriptor (possible only in invalid cases) is copied as it is
// rather than walked through sizes it does not fit.
Bytes input_memory(const TensorDesc& t, const Bytes& logical, uint64_t bytes, uint64_t spare_capacity) {
  const auto count = element_count(t.sizes);
  if (count && *count * element_size(t.type) == logical.size())
    return to_memory(t, logical, bytes, spare_capacity);
  Bytes memory;
  memory.reserve(bytes + spare_capacity);
  memory.resize(bytes, std::byte{0});
  const uint64_t n = std::min<uint64_t>(bytes, logical.size());
  if (n > 0) std::memcpy(memory.data(), logical.data(), n);
  return memory;
}

namespace {

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// 1.0 GiB, 12.5 MiB, 16 B: the sizes a person compares against a limit.
std::string byte_text(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) v /= 1024, ++unit;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace

CaseFootprint case_footprint(const Case& c, CaseClass case_class) {
  CaseFootprint f;
  for (Role r : roles(op_kind(c.op))) {
    const uint64_t declared = tensor(c.op, r)->total_bytes;
    // An invalid case's bindings are cut to kInvalidCaseBindingCap and no oracle runs.
    f.bindings = saturating_add(
        f.bindings, case_class == CaseClass::Invalid ? std::min(declared, kInvalidCaseBindingCap) : declared);
  }
  if (case_class != CaseClass::Invalid) {
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    const auto count = element_count(out.sizes);
    f.logical_output = count ? saturating_mul(*count, element_size(out.type)) : UINT64_MAX;
  }
  for (Role r : roles(op_kind(c.op)))
    if (is_input_role(r)) f.logical_inputs = saturating_add(f.logical_inputs, c.data.of(r).size());
  if (case_class != CaseClass::Invalid)
    visit(c.op, [&](const auto& d) {
      using D = std::decay_t<decltype(d)>;
      if constexpr (requires { D::oracle_bytes(d); }) f.oracle = D::oracle_bytes(d);
    });
  const uint64_t guards = saturating_mul(roles(op_kind(c.op)).size(), kFootprintGuardBytes);
  const uint64_t binding_copies = case_class == CaseClass::Invalid ? 2 : kFootprintBindingCopies;
  f.total = saturating_add(saturating_add(saturating_mul(f.bindings, binding_copies),
                                          saturating_mul(f.logical_output, kFootprintOutputCopies)),
                           saturating_add(saturating_add(f.logical_inputs, f.oracle), guards));
  return f;
}

std::string CaseFootprint::describe(const Case& c) const {
  std::string parts;
  for (Role r : roles(op_kind(c.op)))
    parts +=
        (parts.empty() ? "" : ", ") + std::string(name(r)) + " " + byte_text(tensor(c.op, r)->total_bytes);
  return "needs about " + byte_text(total) + " (bindings " + byte_text(bindings) + ": " + parts +
         "; logical output " + byte_text(logical_output) + "; input data " + byte_text(logical_inputs) +
         (oracle ? "; the oracle's working memory " + byte_text(oracle) : "") + ")";
}

std::unique_ptr<CaseBuffers> allocate_case_buffers(const Case& c, CaseClass case_class, uint64_t max_bytes,
                                                   std::string* why) {
  const auto sizes = binding_sizes(c, case_class, max_bytes, why);
  if (!sizes) return nullptr;
  auto buffers = std::make_unique<HeapCaseBuffers>(c.op);
  for (Role r : roles(op_kind(c.op))) {
    const uint64_t bytes = (*sizes)[static_cast<size_t>(r)];
    if (r == Role::OUTPUT)
      buffers->place_output(bytes);
    else
      buffers->place_input(r, input_memory(*tensor(c.op, r), c.data.of(r), bytes, kHeapGuardBytes));
  }
  return buffers;
}

}  // namespace dmlcert
