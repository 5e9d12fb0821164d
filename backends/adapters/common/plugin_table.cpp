#include "plugin_table.h"

#include <algorithm>
#include <cstdio>

#include "descriptor_checks.h"

namespace dmlcert_adapter {
namespace {

const Library& library_of(void* context) {
  return *static_cast<const Library*>(context);
}

uint32_t max_feature_level(void* context) {
  return library_of(context).max_feature_level;
}

int implements(void* context, uint32_t operator_type, uint32_t reduce_function, uint32_t data_type) {
  return library_of(context).implements(operator_type, reduce_function, data_type) ? 1 : 0;
}

uint32_t execute(void* context, const dmlcert_operator_desc* desc, uint32_t feature_level,
                 const dmlcert_input_binding* inputs, uint32_t input_count,
                 const dmlcert_output_binding* outputs, uint32_t output_count, char* message,
                 size_t message_capacity) {
  const Library& library = library_of(context);
  Operator op;
  RunResult result;
  if (std::string why =
          decode_and_check(desc, feature_level, inputs, input_count, outputs, output_count, &op);
      !why.empty()) {
    result = {DMLCERT_STATUS_INVALID_ARGUMENT, std::move(why)};
  } else if (!library.implements(op.type,
                                 op.type == DMLCERT_OPERATOR_REDUCE ? op.function : DMLCERT_NO_FUNCTION,
                                 op.input.type)) {
    result = {DMLCERT_STATUS_UNSUPPORTED,
              "not mapped onto " + library.name + " for " + type_name(op.input.type)};
  } else {
    result = library.run(op);
  }
  if (message && message_capacity > 0) std::snprintf(message, message_capacity, "%s", result.message.c_str());
  return result.status;
}

}  // namespace

const dmlcert_backend_v1* export_table(uint32_t abi_version, const Library* library) {
  // Any harness version (dmlcert_backend_abi.h, "Versioning").
  if (abi_version < 1) return nullptr;
  static dmlcert_backend_v1 table;
  table = {std::min<uint32_t>(abi_version, DMLCERT_ABI_VERSION),
           sizeof(dmlcert_backend_v1),
           library->name.c_str(),
           const_cast<Library*>(library),
           max_feature_level,
           implements,
           execute,
           nullptr,
           nullptr};  // every index type the tables allow
  return &table;
}

}  // namespace dmlcert_adapter
