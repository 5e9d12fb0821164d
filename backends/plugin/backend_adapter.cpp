#include "plugin/backend_adapter.h"

#include <algorithm>

#include "plugin/abi_convert.h"

namespace dmlcert::plugin {
namespace {

struct Adapter {
  dmlcert_backend_v1 table{};
  std::unique_ptr<Backend> backend;
  std::string name;
  AdapterHooks hooks;
};

Adapter& self(void* context) {
  return *static_cast<Adapter*>(context);
}

uint32_t max_feature_level(void* context) {
  return to_abi(self(context).backend->max_feature_level());
}

int implements(void* context, uint32_t op, uint32_t function, uint32_t type) {
  auto kind = op_from_abi(op);
  auto t = data_type_from_abi(type);
  if (!kind || !t) return 0;
  std::optional<ReduceFunction> f;
  if (*kind == OpKind::REDUCE) f = static_cast<ReduceFunction>(function);
  return self(context).backend->implements(*kind, f, *t) ? 1 : 0;
}

int implements_index_type(void* context, uint32_t op, uint32_t type) {
  auto kind = op_from_abi(op);
  auto t = data_type_from_abi(type);
  return kind && t && self(context).backend->implements_index_type(*kind, *t) ? 1 : 0;
}

uint32_t execute(void* context, const dmlcert_operator_desc* op, uint32_t feature_level,
                 const dmlcert_input_binding* inputs, uint32_t input_count,
                 const dmlcert_output_binding* outputs, uint32_t output_count, char* message,
                 size_t message_capacity) {
  Adapter& a = self(context);
  std::string error;
  auto desc = op ? from_abi(*op, &error) : std::nullopt;
  auto level = feature_level_from_abi(feature_level);
  if (!desc || !level) {
    write_message(desc ? "unknown feature level" : error, message, message_capacity);
    return DMLCERT_STATUS_ERROR;
  }
  std::vector<Role> input_roles;
  for (Role r : roles(op_kind(*desc)))
    if (is_input_role(r)) input_roles.push_back(r);
  if (input_count != input_roles.size() || output_count != 1) {
    write_message("wrong number of bindings", message, message_capacity);
    return DMLCERT_STATUS_ERROR;
  }
  Bindings b;
  for (size_t i = 0; i < input_roles.size(); ++i)
    b.set_input(input_roles[i], {static_cast<const std::byte*>(inputs[i].data), inputs[i].size_in_bytes});
  b.output = {static_cast<std::byte*>(outputs[0].data), outputs[0].size_in_bytes};
  if (a.hooks.before) a.hooks.before(*desc, *level, b);
  ExecResult r = a.backend->execute(*desc, *level, b);
  std::string text = r.message;
  for (const auto& v : r.violations) text += (text.empty() ? "" : "; ") + v.rule + ": " + v.message;
  uint32_t status = DMLCERT_STATUS_ERROR;
  switch (r.status) {
    case Status::Ok:
      if (a.hooks.after) a.hooks.after(*desc, *level, b);
      status = DMLCERT_STATUS_OK;
      break;
    case Status::InvalidArgument: status = DMLCERT_STATUS_INVALID_ARGUMENT; break;
    case Status::Unsupported: status = DMLCERT_STATUS_UNSUPPORTED; break;
    case Status::Error: status = DMLCERT_STATUS_ERROR; break;
  }
  if (a.hooks.status) status = a.hooks.status(status, *desc, text);
  write_message(text, message, message_capacity);
  return status;
}

void destroy(void* context) {
  auto* a = static_cast<Adapter*>(context);
  if (a->hooks.destroy) a->hooks.destroy();
  delete a;
}

}  // namespace

const dmlcert_backend_v1* export_backend(uint32_t abi_version, std::unique_ptr<Backend> backend,
                                         std::string name, AdapterHooks hooks) {
  // Any harness version: an older harness never asks about an operator it does not know, and a
  // newer one never about one this header does not (dmlcert_backend_abi.h, "Versioning").
  if (abi_version < 1 || !backend) return nullptr;
  auto* a = new Adapter{{}, std::move(backend), std::move(name), std::move(hooks)};
  a->table = {std::min<uint32_t>(abi_version, DMLCERT_ABI_VERSION),
              sizeof(dmlcert_backend_v1),
              a->name.c_str(),
              a,
              max_feature_level,
              implements,
              execute,
              destroy,
              implements_index_type};
  return &a->table;
}

}  // namespace dmlcert::plugin
