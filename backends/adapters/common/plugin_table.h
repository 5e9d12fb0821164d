// The C ABI table both adapters export: every call is decoded and checked by the adapters' own
// checks (descriptor_checks.h) before the library sees it; what the library cannot do is
// declared through implements() and answered with UNSUPPORTED.
#pragma once

#include <string>

#include "operator.h"

namespace dmlcert_adapter {

struct RunResult {
  uint32_t status = DMLCERT_STATUS_OK;
  std::string message;
};

// One wrapped library.
struct Library {
  std::string name;  // with the library's version
  uint32_t max_feature_level = DMLCERT_FEATURE_LEVEL_6_4;
  // The cells the adapter maps (reduce_function is DMLCERT_NO_FUNCTION outside REDUCE).
  bool (*implements)(uint32_t operator_type, uint32_t reduce_function, uint32_t data_type) = nullptr;
  // Runs a call that passed the checks, in a cell implements() claims. On any status but OK no
  // output byte may have been written.
  RunResult (*run)(const Operator& op) = nullptr;
};

// The table for `library` (which must outlive it), or nullptr when abi_version is not the one
// the adapters are built for.
const dmlcert_backend_v1* export_table(uint32_t abi_version, const Library* library);

}  // namespace dmlcert_adapter
