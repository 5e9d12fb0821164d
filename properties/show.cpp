// Counterexamples in rapidcheck's failure messages: a case prints as its case-file JSON, so a
// failing property's output can be pasted into a file and replayed with `dmlcert replay`.
#include "generators.h"

namespace dmlcert {

void showValue(const Case& c, std::ostream& os) {
  os << to_json(c, false);
}
void showValue(FeatureLevel l, std::ostream& os) {
  os << name(l);
}
void showValue(DataType t, std::ostream& os) {
  os << name(t);
}
void showValue(OpKind op, std::ostream& os) {
  os << name(op);
}
void showValue(ReduceFunction f, std::ostream& os) {
  os << name(f);
}

}  // namespace dmlcert
