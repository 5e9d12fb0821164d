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
  }
  return "fault?";
}

ConstBuffer Bindings::of(Role r) const {
  switch (r) {
    case Role::INPUT: return input;
    case Role::INDICES: return indices;
    case Role::UPDATES: return updates;
    case Role::OUTPUT: return ConstBuffer{output.data, output.size};
  }
  return {};
}

}  // namespace dmlcert
