#include "workloads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>

#include "optimized/cpu.h"

namespace dmlcert::bench {

namespace {

constexpr uint32_t kN = 4096;
constexpr auto F32 = DataType::FLOAT32;

// Each builder takes `scale`, the factor applied to the first dim: 1 for the cache-sized workload,
// more for its memory-sized variant.

SliceDesc slice(std::vector<uint32_t> strides, uint32_t scale) {
  SliceDesc d;
  d.input = packed_desc(F32, {kN * scale, kN});
  d.offsets = {0, 0};
  d.sizes = {kN * scale / strides[0], kN / strides[1]};
  d.strides = strides;
  d.output = packed_desc(F32, d.sizes);
  return d;
}

Slice1Desc slice1(Sizes in, std::vector<int32_t> strides, uint32_t scale) {
  in[0] *= scale;
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

GatherElementsDesc gather(uint32_t axis, uint32_t scale) {
  GatherElementsDesc d;
  d.input = packed_desc(F32, {kN * scale, kN});
  d.indices = packed_desc(DataType::INT32, {kN * scale, kN});
  d.output = packed_desc(F32, {kN * scale, kN});
  d.axis = axis;
  return d;
}

ScatterNdDesc scatter_rows(uint32_t scale) {
  ScatterNdDesc d;
  d.input = packed_desc(F32, {kN * scale, kN});
  d.indices = packed_desc(DataType::UINT32, {1024 * scale, 1});
  d.updates = packed_desc(F32, {1024 * scale, kN});
  d.output = d.input;
  d.input_dimension_count = 2;
  d.indices_dimension_count = 2;
  return d;
}

ReduceDesc reduce(ReduceFunction f, std::vector<uint32_t> axes, uint32_t scale, DataType type = F32) {
  ReduceDesc d;
  d.function = f;
  d.input = packed_desc(type, {kN * scale, kN});
  Sizes out = d.input.sizes;
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

// A workload family: its name, its roofline and its descriptor at a given scale.
struct Family {
  std::string name;
  Roofline roofline;
  std::function<OperatorDesc(uint32_t scale)> make;
};

Workload instance(const Family& f, uint32_t scale, bool memory_sized) {
  OperatorDesc d = f.make(scale);
  const uint64_t bytes = f.roofline == Roofline::Copy ? output_bytes(d) : input_bytes(d);
  return {memory_sized ? f.name + "_mem" : f.name, f.name, memory_sized, std::move(d), f.roofline, bytes};
}

// A fast deterministic generator (xorshift64*): the memory-sized variants fill up to a gigabyte.
struct Random {
  uint64_t state;
  uint64_t next() {
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  }
  // Uniform in [-1, 1), 24 bits.
  float real() { return static_cast<float>(next() >> 40) * 0x1p-23f - 1.0f; }
};

// Values in [-1, 1): well-scaled for every reduction (LOG_SUM_EXP included).
template <class T, class Gen>
void fill_values(Bytes& bytes, Gen&& gen) {
  const size_t n = bytes.size() / sizeof(T);
  Random rng{12345};
  for (size_t i = 0; i < n; ++i) {
    const T v = gen(rng);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}

void fill_data(const Workload& w, Buffers& b) {
  const DataType t = tensor(w.desc, Role::INPUT)->type;
  auto fill = [&](Bytes& bytes) {
    if (t == DataType::FLOAT32) fill_values<float>(bytes, [](Random& r) { return r.real(); });
    if (t == DataType::FLOAT16) fill_values<half>(bytes, [](Random& r) { return half(r.real()); });
    if (t == DataType::INT32)
      fill_values<int32_t>(bytes, [](Random& r) { return static_cast<int32_t>(r.next() % 2001) - 1000; });
  };
  fill(b.input);
  if (!b.updates.empty()) fill(b.updates);
  if (const auto* g = std::get_if<GatherElementsDesc>(&w.desc)) {
    const uint32_t d = g->input.sizes[g->axis];
    fill_values<int32_t>(b.indices, [&](Random& r) { return static_cast<int32_t>(r.next() % d); });
  }
  if (const auto* s = std::get_if<ScatterNdDesc>(&w.desc)) {  // distinct rows
    std::vector<uint32_t> rows(s->input.sizes[0]);
    std::iota(rows.begin(), rows.end(), 0u);
    std::shuffle(rows.begin(), rows.end(), std::mt19937(7));
    std::memcpy(b.indices.data(), rows.data(), b.indices.size());
  }
}

std::vector<Family> families() {
  using RF = ReduceFunction;
  using S = uint32_t;
  return {
      {"slice_rows_step2", Roofline::Copy,
       [](S s) {
         return OperatorDesc(slice({2, 1}, s));
       }},
      {"slice_cols_step2", Roofline::Copy,
       [](S s) {
         return OperatorDesc(slice({1, 2}, s));
       }},
      {"slice1_reverse_rows", Roofline::Copy,
       [](S s) {
         return OperatorDesc(slice1({kN, kN}, {-1, 1}, s));
       }},
      {"slice1_reverse_cols", Roofline::Copy,
       [](S s) {
         return OperatorDesc(slice1({kN, kN}, {1, -1}, s));
       }},
      {"slice1_4d_mixed", Roofline::Copy,
       [](S s) {
         return OperatorDesc(slice1({64, 64, 64, 64}, {1, -2, 3, -1}, s));
       }},
      {"gather_elements_axis1", Roofline::Copy, [](S s) { return OperatorDesc(gather(1, s)); }},
      {"gather_elements_axis0", Roofline::Copy, [](S s) { return OperatorDesc(gather(0, s)); }},
      {"scatter_nd_rows", Roofline::Copy, [](S s) { return OperatorDesc(scatter_rows(s)); }},
      {"reduce_sum_axis1", Roofline::Read, [](S s) { return OperatorDesc(reduce(RF::SUM, {1}, s)); }},
      {"reduce_sum_axis0", Roofline::Read, [](S s) { return OperatorDesc(reduce(RF::SUM, {0}, s)); }},
      {"reduce_sum_all", Roofline::Read,
       [](S s) {
         return OperatorDesc(reduce(RF::SUM, {0, 1}, s));
       }},
      {"reduce_sum_axis1_f16", Roofline::Read,
       [](S s) { return OperatorDesc(reduce(RF::SUM, {1}, s, DataType::FLOAT16)); }},
      {"reduce_sum_axis1_i32", Roofline::Read,
       [](S s) { return OperatorDesc(reduce(RF::SUM, {1}, s, DataType::INT32)); }},
      {"reduce_max_axis1", Roofline::Read, [](S s) { return OperatorDesc(reduce(RF::MAX, {1}, s)); }},
      {"reduce_argmax_axis1", Roofline::Read, [](S s) { return OperatorDesc(reduce(RF::ARGMAX, {1}, s)); }},
      {"reduce_l2_axis1", Roofline::Read, [](S s) { return OperatorDesc(reduce(RF::L2, {1}, s)); }},
      {"reduce_logsumexp_axis1", Roofline::Read,
       [](S s) { return OperatorDesc(reduce(RF::LOG_SUM_EXP, {1}, s)); }},
  };
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

CacheSize last_level_cache() {
  if (const char* env = std::getenv("DMLCERT_BENCH_LLC_BYTES")) {
    const unsigned long long v = std::strtoull(env, nullptr, 10);
    if (v > 0) return {v, true};
  }
  const uint64_t reported = optimized::reported_last_level_cache_bytes();
  return {optimized::last_level_cache_bytes(), reported > 0};
}

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> all = [] {
    // The memory-sized variant: the smallest scale whose roofline streams at least 4x the LLC, for
    // the workloads whose roofline streams less.
    const uint64_t target = 4 * last_level_cache().bytes;
    std::vector<Workload> list;
    for (const Family& f : families()) {
      list.push_back(instance(f, 1, false));
      uint32_t scale = 1;
      while (instance(f, scale, true).roofline_bytes() < target) ++scale;
      if (scale > 1) list.push_back(instance(f, scale, true));  // scale 1: already memory-sized
    }
    return list;
  }();
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
