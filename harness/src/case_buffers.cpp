#include "dmlcert/case_buffers.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace dmlcert {
namespace {

constexpr std::byte kGuardFill{0x5A};

// Each role's memory is its binding followed by kHeapGuardBytes of kGuardFill.
class HeapCaseBuffers final : public CaseBuffers {
 public:
  explicit HeapCaseBuffers(const OperatorDesc& op) : output_desc_(*tensor(op, Role::OUTPUT)) {}

  Bindings bindings() override {
    auto in = [this](Role r) { return ConstBuffer{memory_[index(r)].data(), size_[index(r)]}; };
    return Bindings{in(Role::INPUT), in(Role::INDICES), in(Role::UPDATES),
                    MutableBuffer{memory_[index(Role::OUTPUT)].data(), size_[index(Role::OUTPUT)]}};
  }
  Bytes output() const override {
    return from_memory(output_desc_, std::span<const std::byte>(memory_[index(Role::OUTPUT)].data(),
                                                                size_[index(Role::OUTPUT)]));
  }
  bool output_untouched() const override {
    const std::byte* out = memory_[index(Role::OUTPUT)].data();
    return std::all_of(out, out + size_[index(Role::OUTPUT)], [](std::byte b) { return b == kOutputFill; });
  }
  bool inputs_intact() const override {
    for (Role r : {Role::INPUT, Role::INDICES, Role::UPDATES})
      if (memory_[index(r)] != pristine_[index(r)]) return false;
    return true;
  }
  bool guards_intact() const override {
    for (size_t i = 0; i < kRoleCount; ++i) {
      const Bytes& m = memory_[i];
      if (!std::all_of(m.begin() + static_cast<ptrdiff_t>(size_[i]), m.end(),
                       [](std::byte b) { return b == kGuardFill; }))
        return false;
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
Bytes input_memory(const TensorDesc& t, const Bytes& logical, uint64_t bytes) {
  const auto count = element_count(t.sizes);
  if (count && *count * element_size(t.type) == logical.size()) return to_memory(t, logical, bytes);
  Bytes memory(bytes, std::byte{0});
  const uint64_t n = std::min<uint64_t>(bytes, logical.size());
  if (n > 0) std::memcpy(memory.data(), logical.data(), n);
  return memory;
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
      buffers->place_input(r, input_memory(*tensor(c.op, r), c.data.of(r), bytes));
  }
  return buffers;
}

}  // namespace dmlcert
