// The adapters' own descriptor checks: DirectML's rules for the five operators (docs/rules.md)
// and its support tables (docs/support.md), written against the C ABI alone. A vendor's library
// checks its descriptors before it runs anything; so do the adapters, without dmlcert's
// validator. Data-dependent rules (index ranges, duplicate indices, overflow, NaN) are left to
// the library, as a vendor's front end would leave them.
#pragma once

#include <string>

#include "operator.h"

namespace dmlcert_adapter {

// Decodes the call into `out` and checks it. Returns an empty string when the descriptor may
// run, otherwise one line saying which rule it breaks (the call is then an invalid argument).
std::string decode_and_check(const dmlcert_operator_desc* op, uint32_t feature_level,
                             const dmlcert_input_binding* inputs, uint32_t input_count,
                             const dmlcert_output_binding* outputs, uint32_t output_count, Operator* out);

}  // namespace dmlcert_adapter
