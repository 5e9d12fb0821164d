#include "plugin/guarded_buffers.h"

#include <algorithm>

#include "plugin/call_memory.h"

namespace dmlcert::plugin {
namespace {

class GuardedCaseBuffers final : public CaseBuffers {
 public:
  explicit GuardedCaseBuffers(const OperatorDesc& op) : output_desc_(*tensor(op, Role::OUTPUT)) {}

  bool init(const Case& c, const std::array<uint64_t, kRoleCount>& sizes, std::string* why) {
    if (!memory_.init(why)) return false;
    layout_ = lay_out(roles(op_kind(c.op)), sizes, memory_.page());
    if (!memory_.reserve(layout_.total_bytes)) {
      *why = "cannot grow the shared memory to " + std::to_string(layout_.total_bytes) + " bytes";
      return false;
    }
    for (Role r : roles(op_kind(c.op))) {
      const uint64_t bytes = sizes[static_cast<size_t>(r)];
      source_[static_cast<size_t>(r)] =
          is_input_role(r) ? input_memory(*tensor(c.op, r), c.data.of(r), bytes) : Bytes(bytes, kOutputFill);
    }
    memory_.place(layout_, source_bindings());
    view_ = GuardedView::map(memory_.fd(), layout_, memory_.page(), why);
    return view_ != nullptr;
  }

  Bindings bindings() override { return view_->bindings(); }
  Bytes output() const override {
    const Region& out = layout_.regions[static_cast<size_t>(Role::OUTPUT)];
    const std::byte* p = memory_.region_data(layout_, Role::OUTPUT);
    return from_memory(output_desc_, std::span<const std::byte>(p, out.size));
  }
  bool output_untouched() const override {
    const Region& out = layout_.regions[static_cast<size_t>(Role::OUTPUT)];
    const std::byte* p = memory_.region_data(layout_, Role::OUTPUT);
    return all_bytes_are(p, out.size, kOutputFill);
  }
  bool inputs_intact() const override {
    const auto fault = memory_.check(layout_, source_bindings());
    return !fault || fault->first != Fault::InputWritten;
  }
  // A write past a binding faults on its guard page; one before it changes the canary.
  bool guards_intact() const override {
    const auto fault = memory_.check(layout_, source_bindings());
    return !fault || fault->first != Fault::OutOfBounds;
  }

 private:
  Bindings source_bindings() const {
    Bindings b;
    for (Role r : kAllRoles)
      if (is_input_role(r))
        b.set_input(r, {source_[static_cast<size_t>(r)].data(), source_[static_cast<size_t>(r)].size()});
    Bytes& out = const_cast<Bytes&>(source_[static_cast<size_t>(Role::OUTPUT)]);
    b.output = {out.data(), out.size()};
    return b;
  }

  TensorDesc output_desc_;
  SharedCallMemory memory_;
  CallLayout layout_;
  std::array<Bytes, kRoleCount> source_;
  std::unique_ptr<GuardedView> view_;
};

}  // namespace

std::unique_ptr<CaseBuffers> allocate_guarded_case_buffers(const Case& c, CaseClass case_class,
                                                           uint64_t max_bytes, std::string* why) {
  const auto sizes = binding_sizes(c, case_class, max_bytes, why);
  if (!sizes) return nullptr;
  auto buffers = std::make_unique<GuardedCaseBuffers>(c.op);
  if (!buffers->init(c, *sizes, why)) return nullptr;
  return buffers;
}

}  // namespace dmlcert::plugin
