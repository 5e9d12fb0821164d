#include "workloads.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

namespace dmlcert::bench {

namespace {

constexpr uint32_t kN = 4096;
constexpr auto F32 = DataType::FLOAT32;

SliceDesc slice(std::vector<uint32_t> strides) {
  SliceDesc d;
  d.input = packed_desc(F32, {kN, kN});
  d.offsets = {0, 0};
  d.sizes = {kN / strides[0], kN / strides[1]};
  d.strides = strides;
  d.output = packed_desc(F32, d.sizes);
  return d;
}

Slice1Desc slice1(Sizes in, std::vector<int32_t> strides) {
  Slice1Desc d;
  d.input = packed_desc(F32, in);
  d.input_window_offsets.assign(in.size(), 0);
  d.input_window_sizes = in;
  d.input_window_strides = strides;
  Sizes out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = 1 + (in[i] - 1) / static_cast<uint32_t>(std::abs(strides[i]));
  d.output = packed_desc(F32, out);
  return d;
}

GatherElementsDesc gather(uint32_t axis) {
  GatherElementsDesc d;
  d.input = packed_desc(F32, {kN, kN});
  d.indices = packed_desc(DataType::INT32, {kN, kN});
  d.output = packed_desc(F32, {kN, kN});
  d.axis = axis;
  return d;
}

ScatterNdDesc scatter_rows() {
  ScatterNdDesc d;
  d.input = packed_desc(F32, {kN, kN});
  d.indices = packed_desc(DataType::UINT32, {1024, 1});
  d.updates = packed_desc(F32, {1024, kN});
  d.output = d.input;
  d.input_dimension_count = 2;
  d.indices_dimension_count = 2;
  return d;
}

ReduceDesc reduce(ReduceFunction f, std::vector<uint32_t> axes, DataType type = F32) {
  ReduceDesc d;
  d.function = f;
  d.input = packed_desc(type, {kN, kN});
  Sizes out = {kN, kN};
  for (uint32_t a : axes) out[a] = 1;
  d.output = packed_desc(is_arg_function(f) ? DataType::UINT32 : type, out);
  d.axes = std::move(axes);
  return d;
}

uint64_t output_bytes(const OperatorDesc& d) {
  return tensor(d, Role::OUTPUT)->total_bytes;
}
uint64_t input_bytes(const OperatorDesc& d) {
  return tensor(d, Role::INPUT)->total_bytes;
}

Workload movement(std::string name, OperatorDesc d) {
  const uint64_t bytes = output_bytes(d);
  return {std::move(name), std::move(d), Roofline::Copy, bytes};
}
Workload reduction(std::string name, OperatorDesc d) {
  const uint64_t bytes = input_bytes(d);
  return {std::move(name), std::move(d), Roofline::Read, bytes};
}

// Values in [-1, 1): well-scaled for every reduction (LOG_SUM_EXP included).
template <class T, class Gen>
void fill_values(std::vector<std::byte>& bytes, Gen&& gen) {
  const size_t n = bytes.size() / sizeof(T);
  std::mt19937 rng(12345);
  for (size_t i = 0; i < n; ++i) {
    const T v = gen(rng);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}

void fill_data(const Workload& w, Buffers& b) {
  const DataType t = tensor(w.desc, Role::INPUT)->type;
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  auto fill = [&](std::vector<std::byte>& bytes) {
    if (t == DataType::FLOAT32) fill_values<float>(bytes, [&](std::mt19937& r) { return real(r); });
    if (t == DataType::FLOAT16) fill_values<half>(bytes, [&](std::mt19937& r) { return half(real(r)); });
    if (t == DataType::INT32)
      fill_values<int32_t>(bytes, [&](std::mt19937& r) { return static_cast<int32_t>(r() % 2001) - 1000; });
  };
  fill(b.input);
  if (!b.updates.empty()) fill(b.updates);
  if (const auto* g = std::get_if<GatherElementsDesc>(&w.desc)) {
    const uint32_t d = g->input.sizes[g->axis];
    fill_values<int32_t>(b.indices, [&](std::mt19937& r) { return static_cast<int32_t>(r() % d); });
  }
  if (std::holds_alternative<ScatterNdDesc>(w.desc)) {  // 1024 distinct rows
    std::vector<uint32_t> rows(kN);
    std::iota(rows.begin(), rows.end(), 0u);
    std::shuffle(rows.begin(), rows.end(), std::mt19937(7));
    std::memcpy(b.indices.data(), rows.data(), b.indices.size());
  }
}

}  // namespace

Bindings Buffers::bindings() {
  Bindings b;
  b.input = {input.data(), input.size()};
  b.indices = {indices.data(), indices.size()};
  b.updates = {updates.data(), updates.size()};
  b.output = {output.data(), output.size()};
  return b;
}

const std::vector<Workload>& workloads() {
  using RF = ReduceFunction;
  static const std::vector<Workload> all = {
      movement("slice_rows_step2", slice({2, 1})),
      movement("slice_cols_step2", slice({1, 2})),
      movement("slice1_reverse_rows", slice1({kN, kN}, {-1, 1})),
      movement("slice1_reverse_cols", slice1({kN, kN}, {1, -1})),
      movement("slice1_4d_mixed", slice1({64, 64, 64, 64}, {1, -2, 3, -1})),
      movement("gather_elements_axis1", gather(1)),
      movement("gather_elements_axis0", gather(0)),
      movement("scatter_nd_rows", scatter_rows()),
      reduction("reduce_sum_axis1", reduce(RF::SUM, {1})),
      reduction("reduce_sum_axis0", reduce(RF::SUM, {0})),
      reduction("reduce_sum_all", reduce(RF::SUM, {0, 1})),
      reduction("reduce_sum_axis1_f16", reduce(RF::SUM, {1}, DataType::FLOAT16)),
      reduction("reduce_sum_axis1_i32", reduce(RF::SUM, {1}, DataType::INT32)),
      reduction("reduce_max_axis1", reduce(RF::MAX, {1})),
      reduction("reduce_argmax_axis1", reduce(RF::ARGMAX, {1})),
      reduction("reduce_l2_axis1", reduce(RF::L2, {1})),
      reduction("reduce_logsumexp_axis1", reduce(RF::LOG_SUM_EXP, {1})),
  };
  return all;
}

Buffers& buffers_for(const Workload& w) {
  static std::string current;
  static std::unique_ptr<Buffers> buffers;
  if (!buffers || current != w.name) {
    buffers.reset();  // free the previous workload's memory first
    buffers = std::make_unique<Buffers>();
    auto size_of = [&](Role r) { return tensor(w.desc, r) ? tensor(w.desc, r)->total_bytes : 0; };
    buffers->input.resize(size_of(Role::INPUT));
    buffers->indices.resize(size_of(Role::INDICES));
    buffers->updates.resize(size_of(Role::UPDATES));
    buffers->output.assign(size_of(Role::OUTPUT), std::byte{0});
    fill_data(w, *buffers);
    current = w.name;
  }
  return *buffers;
}

}  // namespace dmlcert::bench
