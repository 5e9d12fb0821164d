#include "torch_impl.h"

#include <torch/torch.h>

#include "optimized/optimized.h"

namespace dmlcert::bench {

bool torch_has(const std::string& workload) {
  return workload.rfind("slice1_4d", 0) != 0 && workload != "scatter_nd_rows" &&
         workload.find("_f16") == std::string::npos && workload.find("_i32") == std::string::npos;
}

std::function<void()> torch_runner(const Workload& w, Buffers& b) {
  at::set_num_threads(static_cast<int>(optimized::thread_count()));
  const int64_t n = 4096;
  const std::string& name = w.name;
  auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor x = torch::from_blob(b.input.data(), {n, n}, f32);
  if (name == "slice_rows_step2" || name == "slice_cols_step2") {
    const bool rows = name == "slice_rows_step2";
    torch::Tensor y = torch::from_blob(b.output.data(), {rows ? n / 2 : n, rows ? n : n / 2}, f32);
    return [=]() mutable {
      using torch::indexing::Slice;
      y.copy_(rows ? x.index({Slice(0, n, 2), Slice()}) : x.index({Slice(), Slice(0, n, 2)}));
    };
  }
  if (name == "slice1_reverse_rows" || name == "slice1_reverse_cols") {
    const int64_t dim = name == "slice1_reverse_rows" ? 0 : 1;
    torch::Tensor y = torch::from_blob(b.output.data(), {n, n}, f32);
    return [=]() mutable { y.copy_(x.flip({dim})); };
  }
  if (name == "gather_elements_axis1" || name == "gather_elements_axis0") {
    const int64_t dim = name == "gather_elements_axis1" ? 1 : 0;
    torch::Tensor idx = torch::from_blob(b.indices.data(), {n, n}, torch::kInt32).to(torch::kInt64);
    torch::Tensor y = torch::from_blob(b.output.data(), {n, n}, f32);
    return [=]() mutable { torch::gather_out(y, x, dim, idx); };
  }
  if (name == "reduce_sum_axis1" || name == "reduce_sum_axis0") {
    const int64_t dim = name == "reduce_sum_axis1" ? 1 : 0;
    torch::Tensor y = torch::from_blob(b.output.data(), {n}, f32);
    return [=]() mutable { torch::sum_out(y, x, {dim}); };
  }
  if (name == "reduce_sum_all") return [=]() { (void)x.sum().item<float>(); };
  if (name == "reduce_max_axis1") return [=]() { (void)std::get<0>(x.max(1)); };
  if (name == "reduce_argmax_axis1") return [=]() { (void)x.argmax(1); };
  if (name == "reduce_l2_axis1") return [=]() { (void)x.norm(2, {1}); };
  if (name == "reduce_logsumexp_axis1") return [=]() { (void)x.logsumexp({1}); };
  return {};
}

}  // namespace dmlcert::bench
