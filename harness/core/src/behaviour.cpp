#include "dmlcert/behaviour.h"

namespace dmlcert {

std::string_view name(Behaviour b) {
  switch (b) {
    case Behaviour::Specified: return "specified";
    case Behaviour::NthWriteWins: return "nth-write-wins";
    case Behaviour::NanPropagating: return "nan-propagating";
    case Behaviour::NanIgnoring: return "nan-ignoring";
    case Behaviour::IndexClamped: return "index-clamped";
    case Behaviour::IndexWrapped: return "index-wrapped";
  }
  return "behaviour?";
}

}  // namespace dmlcert
