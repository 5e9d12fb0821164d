#include "torch_impl.h"

#include <torch/torch.h>

#include <map>

#include "optimized/optimized.h"

namespace dmlcert::bench {

namespace {

using Runner = std::function<void()>;

std::vector<int64_t> shape_of(const Workload& w, Role role) {
  const TensorDesc& t = *tensor(w.desc, role);
  return std::vector<int64_t>(t.sizes.begin(), t.sizes.end());
}
torch::Tensor f32_view(std::vector<std::byte>& bytes, const std::vector<int64_t>& shape) {
  return torch::from_blob(bytes.data(), shape, torch::TensorOptions().dtype(torch::kFloat32));
}
torch::Tensor input_of(const Workload& w, Buffers& b) {
  return f32_view(b.input, shape_of(w, Role::INPUT));
}
torch::Tensor output_of(const Workload& w, Buffers& b) {
  return f32_view(b.output, shape_of(w, Role::OUTPUT));
}

Runner slice_step2(const Workload& w, Buffers& b, bool rows) {
  using torch::indexing::Slice;
  torch::Tensor x = input_of(w, b), y = output_of(w, b);
  return [=]() mutable {
    y.copy_(rows ? x.index({Slice(0, torch::indexing::None, 2), Slice()})
                 : x.index({Slice(), Slice(0, torch::indexing::None, 2)}));
  };
}

Runner flip(const Workload& w, Buffers& b, int64_t dim) {
  torch::Tensor x = input_of(w, b), y = output_of(w, b);
  return [=]() mutable { y.copy_(x.flip({dim})); };
}

Runner gather(const Workload& w, Buffers& b, int64_t dim) {
  torch::Tensor x = input_of(w, b), y = output_of(w, b);
  // torch::gather takes INT64 indices: converted once, outside the timed loop.
  torch::Tensor idx =
      torch::from_blob(b.indices.data(), shape_of(w, Role::INDICES), torch::kInt32).to(torch::kInt64);
  return [=]() mutable { torch::gather_out(y, x, dim, idx); };
}

Runner sum_axis(const Workload& w, Buffers& b, int64_t dim) {
  torch::Tensor x = input_of(w, b), y = f32_view(b.output, {x.size(1 - dim)});
  return [=]() mutable { torch::sum_out(y, x, {dim}); };
}

// The reductions below return a new tensor, as a torch user writes them.
template <class F>
Runner returning(const Workload& w, Buffers& b, F f) {
  torch::Tensor x = input_of(w, b);
  return [=]() { (void)f(x); };
}

// One entry per workload family libtorch has an operator for.
const std::map<std::string, std::function<Runner(const Workload&, Buffers&)>>& runners() {
  using T = const torch::Tensor&;
  static const std::map<std::string, std::function<Runner(const Workload&, Buffers&)>> table = {
      {"slice_rows_step2", [](const Workload& w, Buffers& b) { return slice_step2(w, b, true); }},
      {"slice_cols_step2", [](const Workload& w, Buffers& b) { return slice_step2(w, b, false); }},
      {"slice1_reverse_rows", [](const Workload& w, Buffers& b) { return flip(w, b, 0); }},
      {"slice1_reverse_cols", [](const Workload& w, Buffers& b) { return flip(w, b, 1); }},
      {"gather_elements_axis1", [](const Workload& w, Buffers& b) { return gather(w, b, 1); }},
      {"gather_elements_axis0", [](const Workload& w, Buffers& b) { return gather(w, b, 0); }},
      {"reduce_sum_axis1", [](const Workload& w, Buffers& b) { return sum_axis(w, b, 1); }},
      {"reduce_sum_axis0", [](const Workload& w, Buffers& b) { return sum_axis(w, b, 0); }},
      {"reduce_sum_all",
       [](const Workload& w, Buffers& b) {
         return returning(w, b, [](T x) { return x.sum().item<float>(); });
       }},
      {"reduce_max_axis1",
       [](const Workload& w, Buffers& b) {
         return returning(w, b, [](T x) { return std::get<0>(x.max(1)); });
       }},
      {"reduce_argmax_axis1",
       [](const Workload& w, Buffers& b) { return returning(w, b, [](T x) { return x.argmax(1); }); }},
      {"reduce_l2_axis1",
       [](const Workload& w, Buffers& b) { return returning(w, b, [](T x) { return x.norm(2, {1}); }); }},
      {"reduce_logsumexp_axis1",
       [](const Workload& w, Buffers& b) { return returning(w, b, [](T x) { return x.logsumexp({1}); }); }},
  };
  return table;
}

}  // namespace

bool torch_has(const Workload& w) {
  return runners().count(w.family) != 0;
}

std::function<void()> torch_runner(const Workload& w, Buffers& b) {
  at::set_num_threads(static_cast<int>(optimized::thread_count()));
  return runners().at(w.family)(w, b);
}

}  // namespace dmlcert::bench
