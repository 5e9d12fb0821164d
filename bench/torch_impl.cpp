#include "torch_impl.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "adapters/torch/torch_mapping.h"
#include "optimized/optimized.h"
#include "plugin/abi_convert.h"

namespace dmlcert::bench {
namespace {

const dmlcert_backend_v1& adapter() {
  static const dmlcert_backend_v1* table = dmlcert_adapter::torch_adapter::backend_table(DMLCERT_ABI_VERSION);
  return *table;
}

}  // namespace

bool torch_has(const std::string& workload) {
  const auto& all = workloads();
  const auto w = std::find_if(all.begin(), all.end(), [&](const Workload& x) { return x.name == workload; });
  if (w == all.end()) return false;
  const auto function = reduce_function(w->desc);
  return adapter().implements(adapter().context, plugin::to_abi(op_kind(w->desc)),
                              function ? static_cast<uint32_t>(*function) : DMLCERT_NO_FUNCTION,
                              plugin::to_abi(tensor(w->desc, Role::INPUT)->type)) != 0;
}

std::function<void()> torch_runner(const Workload& w, Buffers& b) {
  at::set_num_threads(static_cast<int>(optimized::thread_count()));
  auto op = std::make_shared<plugin::AbiOperator>(w.desc);
  const Bindings bindings = b.bindings();
  std::vector<dmlcert_input_binding> inputs;
  for (Role r : roles(op_kind(w.desc)))
    if (is_input_role(r)) inputs.push_back({bindings.of(r).data, bindings.of(r).size});
  const dmlcert_output_binding output{bindings.output.data, bindings.output.size};
  return [op, inputs, output]() {
    char message[512] = "";
    const uint32_t status =
        adapter().execute(adapter().context, op->get(), DMLCERT_FEATURE_LEVEL_5_0, inputs.data(),
                          static_cast<uint32_t>(inputs.size()), &output, 1, message, sizeof message);
    if (status != DMLCERT_STATUS_OK)
      throw std::runtime_error(std::string("the torch adapter refused: ") + message);
  };
}

}  // namespace dmlcert::bench
