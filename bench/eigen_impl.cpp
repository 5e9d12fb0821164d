#define EIGEN_USE_THREADS
#include "eigen_impl.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include "optimized/optimized.h"

namespace dmlcert::bench {

namespace {

using Index = Eigen::Index;
template <class T, int R>
using In = Eigen::TensorMap<const Eigen::Tensor<T, R, Eigen::RowMajor>>;
template <class T, int R>
using Out = Eigen::TensorMap<Eigen::Tensor<T, R, Eigen::RowMajor>>;

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

}  // namespace

std::function<void()> eigen_runner(const Workload& w, Buffers& b) {
  auto& dev = device();
  const Index n = 4096;
  const std::string& name = w.name;
  In<float, 2> x(in_ptr<float>(b), n, n);
  if (name == "slice_rows_step2" || name == "slice_cols_step2") {
    const bool rows = name == "slice_rows_step2";
    const Eigen::array<Index, 2> strides = {rows ? 2 : 1, rows ? 1 : 2};
    Out<float, 2> y(out_ptr<float>(b), rows ? n / 2 : n, rows ? n : n / 2);
    return [=, &dev]() mutable { y.device(dev) = x.stride(strides); };
  }
  if (name == "slice1_reverse_rows" || name == "slice1_reverse_cols") {
    const bool rows = name == "slice1_reverse_rows";
    const Eigen::array<bool, 2> rev = {rows, !rows};
    Out<float, 2> y(out_ptr<float>(b), n, n);
    return [=, &dev]() mutable { y.device(dev) = x.reverse(rev); };
  }
  if (name == "slice1_4d_mixed") {  // window strides {1,-2,3,-1}: reverse dims 1 and 3, then stride
    In<float, 4> x4(in_ptr<float>(b), 64, 64, 64, 64);
    Out<float, 4> y(out_ptr<float>(b), 64, 32, 22, 64);
    const Eigen::array<bool, 4> rev = {false, true, false, true};
    const Eigen::array<Index, 4> strides = {1, 2, 3, 1};
    return [=, &dev]() mutable { y.device(dev) = x4.reverse(rev).stride(strides); };
  }
  const Eigen::array<Index, 1> axis1 = {1}, axis0 = {0};
  if (name == "reduce_sum_axis1" || name == "reduce_sum_axis0") {
    const bool a1 = name == "reduce_sum_axis1";
    Out<float, 1> y(out_ptr<float>(b), n);
    return [=, &dev]() mutable { y.device(dev) = x.sum(a1 ? axis1 : axis0); };
  }
  if (name == "reduce_sum_all") {
    Out<float, 0> y(out_ptr<float>(b));
    return [=, &dev]() mutable { y.device(dev) = x.sum(); };
  }
  if (name == "reduce_sum_axis1_f16") {
    In<Eigen::half, 2> h(in_ptr<Eigen::half>(b), n, n);
    Out<Eigen::half, 1> y(out_ptr<Eigen::half>(b), n);
    return [=, &dev]() mutable { y.device(dev) = h.sum(axis1); };
  }
  if (name == "reduce_sum_axis1_i32") {
    In<int32_t, 2> xi(in_ptr<int32_t>(b), n, n);
    Out<int32_t, 1> y(out_ptr<int32_t>(b), n);
    return [=, &dev]() mutable { y.device(dev) = xi.sum(axis1); };
  }
  if (name == "reduce_max_axis1") {
    Out<float, 1> y(out_ptr<float>(b), n);
    return [=, &dev]() mutable { y.device(dev) = x.maximum(axis1); };
  }
  if (name == "reduce_argmax_axis1") {
    // Eigen's argmax yields Eigen::Index; the workload's UINT32 output buffer is too small for
    // that, so Eigen writes into its own buffer.
    auto idx = std::make_shared<Eigen::Tensor<Index, 1, Eigen::RowMajor>>(n);
    return [=, &dev]() mutable { idx->device(dev) = x.argmax(1); };
  }
  if (name == "reduce_l2_axis1") {
    Out<float, 1> y(out_ptr<float>(b), n);
    return [=, &dev]() mutable { y.device(dev) = x.square().sum(axis1).sqrt(); };
  }
  return {};
}

}  // namespace dmlcert::bench
