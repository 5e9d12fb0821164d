// REDUCE that stages each group's elements in a scratch buffer before reducing them. The buffer
// comes from a pool that places every allocation against a guard page, and it is allocated once,
// on the first call, for that call's groups. BUG: it is never grown: a later call with larger
// groups writes past its end (into the guard page: the process dies).
#include <sys/mman.h>
#include <unistd.h>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ReduceScratchSizedByFirstCall final : public PatchedReference {
  std::byte* scratch_ = nullptr;

  // `bytes` at the end of fresh pages, a no-access page right after them.
  static std::byte* allocate_against_guard(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t span = (bytes + page - 1) / page * page;
    void* p = mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    auto* base = static_cast<std::byte*>(p);
    mprotect(base + span, page, PROT_NONE);
    return base + span - bytes;
  }

  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc);
    if (!d) return std::nullopt;
    const size_t element = element_size(d->input.type);
    uint64_t group = 1;
    for (uint32_t a : axis_set(d->axes)) group *= d->input.sizes[a];
    if (!scratch_) scratch_ = allocate_against_guard(group * element);  // BUG: sized once
    if (!scratch_) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte*) {
      for (size_t i = 0; i < xs.size(); ++i) std::memcpy(scratch_ + i * element, xs[i], element);
    });
    return reference().execute(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(reduce_scratch_sized_by_first_call, dmlcert::mutants::ReduceScratchSizedByFirstCall)
