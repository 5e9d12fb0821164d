#define EIGEN_USE_THREADS
#include "eigen_impl.h"

#include <map>
#include <unsupported/Eigen/CXX11/Tensor>

#include "optimized/optimized.h"

namespace dmlcert::bench {

namespace {

using Index = Eigen::Index;
template <class T, int R>
using In = Eigen::TensorMap<const Eigen::Tensor<T, R, Eigen::RowMajor>>;
template <class T, int R>
using Out = Eigen::TensorMap<Eigen::Tensor<T, R, Eigen::RowMajor>>;
using Runner = std::function<void()>;

Eigen::ThreadPoolDevice& device() {
  static Eigen::ThreadPool pool(static_cast<int>(optimized::thread_count()));
  static Eigen::ThreadPoolDevice dev(&pool, static_cast<int>(optimized::thread_count()));
  return dev;
}

template <class T>
const T* in_ptr(Buffers& b) {
  return reinterpret_cast<const T*>(b.input.data());
}
template <class T>
T* out_ptr(Buffers& b) {
  return reinterpret_cast<T*>(b.output.data());
}

// The input's sizes as Eigen dims (every workload's input is [rows, cols] or 4-d).
template <int R>
Eigen::array<Index, R> dims_of(const TensorDesc& t) {
  Eigen::array<Index, R> d;
  for (int i = 0; i < R; ++i) d[i] = t.sizes[i];
  return d;
}
const TensorDesc& input_of(const Workload& w) {
  return *tensor(w.desc, Role::INPUT);
}
const TensorDesc& output_of(const Workload& w) {
  return *tensor(w.desc, Role::OUTPUT);
}

Runner slice_step2(const Workload& w, Buffers& b, bool rows) {
  In<float, 2> x(in_ptr<float>(b), dims_of<2>(input_of(w)));
  Out<float, 2> y(out_ptr<float>(b), dims_of<2>(output_of(w)));
  const Eigen::array<Index, 2> strides = {rows ? 2 : 1, rows ? 1 : 2};
  return [=, &dev = device()]() mutable { y.device(dev) = x.stride(strides); };
}

Runner reverse(const Workload& w, Buffers& b, bool rows) {
  In<float, 2> x(in_ptr<float>(b), dims_of<2>(input_of(w)));
  Out<float, 2> y(out_ptr<float>(b), dims_of<2>(output_of(w)));
  const Eigen::array<bool, 2> rev = {rows, !rows};
  return [=, &dev = device()]() mutable { y.device(dev) = x.reverse(rev); };
}

// Window strides {1,-2,3,-1}: reverse dims 1 and 3, then stride.
Runner slice1_4d_mixed(const Workload& w, Buffers& b) {
  In<float, 4> x(in_ptr<float>(b), dims_of<4>(input_of(w)));
  Out<float, 4> y(out_ptr<float>(b), dims_of<4>(output_of(w)));
  const Eigen::array<bool, 4> rev = {false, true, false, true};
  const Eigen::array<Index, 4> strides = {1, 2, 3, 1};
  return [=, &dev = device()]() mutable { y.device(dev) = x.reverse(rev).stride(strides); };
}

// A reduction of the [rows, cols] input over `axis` (0 or 1) of element type T.
template <class T, class Reduce>
Runner reduce_axis(const Workload& w, Buffers& b, Index axis, Reduce reduce) {
  In<T, 2> x(in_ptr<T>(b), dims_of<2>(input_of(w)));
  Out<T, 1> y(out_ptr<T>(b), static_cast<Index>(input_of(w).sizes[1 - axis]));
  const Eigen::array<Index, 1> axes = {axis};
  return [=, &dev = device()]() mutable { y.device(dev) = reduce(x, axes); };
}

Runner sum_all(const Workload& w, Buffers& b) {
  In<float, 2> x(in_ptr<float>(b), dims_of<2>(input_of(w)));
  Out<float, 0> y(out_ptr<float>(b));
  return [=, &dev = device()]() mutable { y.device(dev) = x.sum(); };
}

Runner argmax_axis1(const Workload& w, Buffers& b) {
  In<float, 2> x(in_ptr<float>(b), dims_of<2>(input_of(w)));
  // Eigen's argmax yields Eigen::Index; the workload's UINT32 output buffer is too small for
  // that, so Eigen writes into its own buffer.
  auto idx = std::make_shared<Eigen::Tensor<Index, 1, Eigen::RowMajor>>(x.dimension(0));
  return [=, &dev = device()]() mutable { idx->device(dev) = x.argmax(1); };
}

const auto kSum = [](const auto& x, const auto& axes) { return x.sum(axes); };

// One entry per workload family Eigen has an operator for.
const std::map<std::string, std::function<Runner(const Workload&, Buffers&)>>& runners() {
  static const std::map<std::string, std::function<Runner(const Workload&, Buffers&)>> table = {
      {"slice_rows_step2", [](const Workload& w, Buffers& b) { return slice_step2(w, b, true); }},
      {"slice_cols_step2", [](const Workload& w, Buffers& b) { return slice_step2(w, b, false); }},
      {"slice1_reverse_rows", [](const Workload& w, Buffers& b) { return reverse(w, b, true); }},
      {"slice1_reverse_cols", [](const Workload& w, Buffers& b) { return reverse(w, b, false); }},
      {"slice1_4d_mixed", slice1_4d_mixed},
      {"reduce_sum_axis1", [](const Workload& w, Buffers& b) { return reduce_axis<float>(w, b, 1, kSum); }},
      {"reduce_sum_axis0", [](const Workload& w, Buffers& b) { return reduce_axis<float>(w, b, 0, kSum); }},
      {"reduce_sum_all", sum_all},
      {"reduce_sum_axis1_f16",
       [](const Workload& w, Buffers& b) { return reduce_axis<Eigen::half>(w, b, 1, kSum); }},
      {"reduce_sum_axis1_i32",
       [](const Workload& w, Buffers& b) { return reduce_axis<int32_t>(w, b, 1, kSum); }},
      {"reduce_max_axis1",
       [](const Workload& w, Buffers& b) {
         return reduce_axis<float>(w, b, 1, [](const auto& x, const auto& axes) { return x.maximum(axes); });
       }},
      {"reduce_argmax_axis1", argmax_axis1},
      {"reduce_l2_axis1",
       [](const Workload& w, Buffers& b) {
         return reduce_axis<float>(
             w, b, 1, [](const auto& x, const auto& axes) { return x.square().sum(axes).sqrt(); });
       }},
  };
  return table;
}

}  // namespace

bool eigen_has(const Workload& w) {
  return runners().count(w.family) != 0;
}

std::function<void()> eigen_runner(const Workload& w, Buffers& b) {
  return runners().at(w.family)(w, b);
}

}  // namespace dmlcert::bench
