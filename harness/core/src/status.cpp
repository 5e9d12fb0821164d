#include "dmlcert/backend.h"

namespace dmlcert {

std::string_view name(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::InvalidArgument: return "invalid-argument";
    case Status::Unsupported: return "unsupported";
    case Status::Error: return "error";
  }
  return "status?";
}

std::string_view name(Fault f) {
  switch (f) {
    case Fault::None: return "none";
    case Fault::Crash: return "crash";
    case Fault::Timeout: return "timeout";
    case Fault::OutOfBounds: return "oob";
    case Fault::InputWritten: return "input-written";
    case Fault::LateWrite: return "late-write";
    case Fault::Limit: return "limit";
  }
  return "fault?";
}

namespace {

// The member that holds an input role's binding (none for the output, a MutableBuffer of its own).
ConstBuffer Bindings::*input_member(Role r) {
  switch (r) {
    case Role::INPUT: return &Bindings::input;
    case Role::INDICES: return &Bindings::indices;
    case Role::UPDATES: return &Bindings::updates;
    case Role::OUTPUT: return nullptr;
  }
  return nullptr;
}

}  // namespace

ConstBuffer Bindings::of(Role r) const {
  if (const auto member = input_member(r)) return this->*member;
  return ConstBuffer{output.data, output.size};
}

void Bindings::set_input(Role r, ConstBuffer b) {
  if (const auto member = input_member(r)) this->*member = b;
}

std::vector<Violation> binding_violations(const OperatorDesc& desc, const Bindings& b) {
  std::vector<Violation> out;
  for (Role role : roles(op_kind(desc))) {
    const ConstBuffer buffer = b.of(role);
    const auto need = min_implied_bytes(*tensor(desc, role));
    if (!need || buffer.data == nullptr || buffer.size < *need)
      out.push_back({"T.TOTAL_BYTES", "the " + std::string(name(role)) + " binding holds " +
                                          std::to_string(buffer.size) +
                                          " bytes, fewer than the minimum implied size " +
                                          (need ? std::to_string(*need) : std::string("(overflows)"))});
  }
  return out;
}

}  // namespace dmlcert
