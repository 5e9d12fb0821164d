// A backend that implements only some cells: no FLOAT64 anywhere, no LOG_SUM or LOG_SUM_EXP, and
// no GATHER_ELEMENTS at all. It says so through implements() and answers a valid call of a cell it
// does not implement with Unsupported; it still rejects every invalid descriptor. Certification
// holds only the cells it claims against it.
#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class ClaimsSomeCells final : public mutants::PatchedReference {
 public:
  bool implements(OpKind op, std::optional<ReduceFunction> f, DataType t) const override {
    if (t == DataType::FLOAT64 || op == OpKind::GATHER_ELEMENTS) return false;
    if (f && (*f == ReduceFunction::LOG_SUM || *f == ReduceFunction::LOG_SUM_EXP)) return false;
    return PatchedReference::implements(op, f, t);
  }

 private:
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings&) override {
    const DataType type = tensor(desc, Role::INPUT)->type;
    if (implements(op_kind(desc), reduce_function(desc), type) || !validate(desc, level).invalid.empty())
      return std::nullopt;
    return exec_result(Status::Unsupported, Fault::None, "this backend does not implement the cell");
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(claims_some_cells, dmlcert::variants::ClaimsSomeCells)
