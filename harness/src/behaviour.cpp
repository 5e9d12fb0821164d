#include "dmlcert/behaviour.h"

namespace dmlcert {

std::string_view name(Behaviour b) {
  switch (b) {
    case Behaviour::Specified: return "specified";
    case Behaviour::NthWriteWins: return "nth-write-wins";
    case Behaviour::NanPropagating: return "nan-propagating";
    case Behaviour::NanIgnoring: return "nan-ignoring";
  }
  return "behaviour?";
}

}  // namespace dmlcert
