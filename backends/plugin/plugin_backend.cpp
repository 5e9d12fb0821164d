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
    uint32_t f = function ? static_cast<uint32_t>(*function) : DMLCERT_NO_FUNCTION;
    return table_->implements(table_->context, to_abi(op), f, to_abi(type)) != 0;
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
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
  const dmlcert_backend_v1* table_;
};

}  // namespace

std::unique_ptr<Backend> load_plugin(const std::string& path, std::string* error) {
  auto fail = [error](std::string why) -> std::unique_ptr<Backend> {
    if (error) *error = std::move(why);
    return nullptr;
  };
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return fail(std::string("cannot load plugin: ") + ::dlerror());
  auto entry = reinterpret_cast<dmlcert_get_backend_fn>(::dlsym(library, DMLCERT_ENTRY_SYMBOL));
  if (!entry) return fail(path + " does not export " DMLCERT_ENTRY_SYMBOL);
  const dmlcert_backend_v1* table = entry(DMLCERT_ABI_VERSION);
  if (!table)
    return fail(path + ": " DMLCERT_ENTRY_SYMBOL "(" + std::to_string(DMLCERT_ABI_VERSION) +
                ") returned NULL");
  if (table->abi_version != DMLCERT_ABI_VERSION)
    return fail(path + ": plugin implements ABI version " + std::to_string(table->abi_version) +
                ", expected " + std::to_string(DMLCERT_ABI_VERSION));
  if (table->struct_size < sizeof(dmlcert_backend_v1) || !table->max_feature_level || !table->implements ||
      !table->execute)
    return fail(path + ": incomplete function table");
  return std::make_unique<PluginBackend>(table);
}

}  // namespace dmlcert::plugin
