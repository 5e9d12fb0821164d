#include "failure.h"

#include "dmlcert/operators.h"
#include "dmlcert/reduce_function.h"

namespace dmlcert::cert {

std::string_view name(Confirmation c) {
  switch (c) {
    case Confirmation::Reproduced: return "reproduced alone";
    case Confirmation::StateDependent: return "state-dependent";
    case Confirmation::NotReproduced: return "not reproduced";
    case Confirmation::Unchecked: return "unchecked";
  }
  return "?";
}

std::optional<Confirmation> parse_confirmation(std::string_view text) {
  for (auto c : {Confirmation::Reproduced, Confirmation::StateDependent, Confirmation::NotReproduced,
                 Confirmation::Unchecked})
    if (name(c) == text) return c;
  return std::nullopt;
}

std::string op_subject(const Case& c) {
  std::string op(name(op_kind(c.op)));
  if (const auto f = reduce_function(c.op)) op += "." + name(*f);
  return op;
}

}  // namespace dmlcert::cert
