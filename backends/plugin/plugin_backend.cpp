#include "plugin/plugin_backend.h"

#include <dlfcn.h>

#include "plugin/abi_convert.h"

namespace dmlcert::plugin {
namespace {

constexpr size_t kMessageCapacity = 4096;

class PluginBackend : public Backend {
 public:
  explicit PluginBackend(const dmlcert_backend_v1* table) : table_(table) {}
  ~PluginBackend() override {
    if (table_->destroy) table_->destroy(table_->context);
    // The library stays loaded: a plugin may have registered atexit handlers or threads.
  }

  std::string name() const override { return table_->name ? table_->name : "plugin"; }

  FeatureLevel max_feature_level() const override {
    auto level = feature_level_from_abi(table_->max_feature_level(table_->context));
    return level.value_or(FeatureLevel::L1_0);
  }

  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    if (!knows(op)) return false;
    uint32_t f = function ? static_cast<uint32_t>(*function) : DMLCERT_NO_FUNCTION;
    return table_->implements(table_->context, to_abi(op), f, to_abi(type)) != 0;
  }

  bool implements_index_type(OpKind op, DataType index_type) const override {
    if (!knows(op)) return false;
    // A version-1 table ends before the field (DMLCERT_BACKEND_V1_SIZE): nothing past it is read.
    if (table_->abi_version < 2 ||
        table_->struct_size < offsetof(dmlcert_backend_v1, implements_index_type) + sizeof(void*) ||
        !table_->implements_index_type)
      return true;
    return table_->implements_index_type(table_->context, to_abi(op), to_abi(index_type)) != 0;
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    if (!knows(op_kind(desc))) {
      ExecResult r = exec_result(Status::Unsupported, Fault::None,
                                 "the plugin implements ABI version " + std::to_string(table_->abi_version) +
                                     ", which has no " + std::string(dmlcert::name(op_kind(desc))));
      r.not_asked = true;
      return r;
    }
    AbiOperator op(desc);
    if (op.unrepresentable()) {
      // Such a descriptor cannot be handed to any ABI backend; it is rejected at the boundary,
      // exactly as DirectML's own structs could not carry it.
      ExecResult r = exec_result(Status::InvalidArgument, Fault::None,
                                 "not representable in the C ABI: " + op.unrepresentable()->message);
      r.violations = {*op.unrepresentable()};
      r.not_asked = true;
      return r;
    }
    std::vector<dmlcert_input_binding> inputs;
    for (Role r : roles(op_kind(desc))) {
      if (!is_input_role(r)) continue;
      ConstBuffer buf = b.of(r);
      inputs.push_back({buf.data, buf.size});
    }
    dmlcert_output_binding output{b.output.data, b.output.size};
    std::string message(kMessageCapacity, '\0');
    uint32_t status =
        table_->execute(table_->context, op.get(), to_abi(level), inputs.data(),
                        static_cast<uint32_t>(inputs.size()), &output, 1, message.data(), message.size());
    message.resize(message.find('\0') == std::string::npos ? message.size() : message.find('\0'));
    ExecResult result;
    result.message = message;
    switch (status) {
      case DMLCERT_STATUS_OK: result.status = Status::Ok; break;
      case DMLCERT_STATUS_INVALID_ARGUMENT: result.status = Status::InvalidArgument; break;
      case DMLCERT_STATUS_UNSUPPORTED: result.status = Status::Unsupported; break;
      default:
        result.status = Status::Error;
        // A value outside the enum: say which, with whatever the plugin explained.
        if (status != DMLCERT_STATUS_ERROR)
          result.message = "unknown status " + std::to_string(status) +
                           " (not a DMLCERT_STATUS_* value): " + (message.empty() ? "no message" : message);
    }
    return result;
  }

 private:
  // Whether the plugin's ABI version has the operator at all (dmlcert_backend_abi.h,
  // "Versioning"): an older plugin is never asked about a newer operator.
  bool knows(OpKind op) const { return info(op).abi_version <= table_->abi_version; }

  const dmlcert_backend_v1* table_;
};

}  // namespace

std::unique_ptr<Backend> load_plugin(const std::string& path, std::string* error, uint32_t harness_abi) {
  auto fail = [error](std::string why) -> std::unique_ptr<Backend> {
    if (error) *error = std::move(why);
    return nullptr;
  };
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return fail(std::string("cannot load plugin: ") + ::dlerror());
  auto entry = reinterpret_cast<dmlcert_get_backend_fn>(::dlsym(library, DMLCERT_ENTRY_SYMBOL));
  if (!entry) return fail(path + " does not export " DMLCERT_ENTRY_SYMBOL);
  // This version first, then each older one: a plugin built from an older header may answer only
  // its own (dmlcert_backend_abi.h, "Versioning").
  const dmlcert_backend_v1* table = nullptr;
  uint32_t asked = harness_abi + 1;
  while (!table && asked > 1) table = entry(--asked);
  if (!table)
    return fail(path + ": " DMLCERT_ENTRY_SYMBOL " returned NULL for every ABI version from " +
                std::to_string(harness_abi) + " down to 1");
  if (table->abi_version < 1 || table->abi_version > asked) {
    const std::string why = path + ": asked for ABI version " + std::to_string(asked) +
                            ", the plugin answered with version " + std::to_string(table->abi_version);
    // Refused, but made: its backend is released as any other would be (the v1 prefix is stable).
    if (table->struct_size >= DMLCERT_BACKEND_V1_SIZE && table->destroy) table->destroy(table->context);
    return fail(why);
  }
  if (table->struct_size < DMLCERT_BACKEND_V1_SIZE || !table->max_feature_level || !table->implements ||
      !table->execute)
    return fail(path + ": incomplete function table");
  return std::make_unique<PluginBackend>(table);
}

}  // namespace dmlcert::plugin
