// A backend that never checks TotalTensorSizeInBytes (T.TOTAL_BYTES): a descriptor whose only
// fault is a size below its minimum implied size (class I) is executed as if it were big enough,
// through scratch copies, so only the status gives it away.
#include <map>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class TotalBytesUnchecked final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    if (!only_broken(validate(desc, level), {"T.TOTAL_BYTES"})) return std::nullopt;
    // BUG: no T.TOTAL_BYTES check. Each tensor gets a scratch copy of its implied size.
    OperatorDesc sized = desc;
    std::map<Role, Bytes> scratch;
    Bindings big;
    for (Role role : roles(op_kind(desc))) {
      TensorDesc& t = *tensor(sized, role);
      const auto need = min_implied_bytes(t);
      if (!need || *need > (uint64_t{1} << 28)) return std::nullopt;  // too big to fake: reject
      t.total_bytes = *need;
      Bytes& mem = scratch[role] = Bytes(*need);
      const ConstBuffer given = b.of(role);
      if (given.data) std::memcpy(mem.data(), given.data, std::min<uint64_t>(given.size, *need));
      if (role == Role::OUTPUT)
        big.output = MutableBuffer{mem.data(), mem.size()};
      else
        big.set_input(role, {mem.data(), mem.size()});
    }
    ExecResult r = reference().execute(sized, level, big);
    if (r.status == Status::Ok && b.output.data)
      std::memcpy(b.output.data, scratch[Role::OUTPUT].data(),
                  std::min<uint64_t>(b.output.size, scratch[Role::OUTPUT].size()));
    return r;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(total_bytes_unchecked, dmlcert::mutants::TotalBytesUnchecked)
