// SCATTER_ND: output = input, then output[indices[t]] = updates[t] block by block.
// Three passes: (1) turn every index tuple into an output offset, checking ranges, so that a
// rejection (SCATTERND.INDEX_RANGE) writes nothing; (2) copy input to output; (3) copy the update
// blocks. Pass 3 is split so that each output element is written by one thread only, in tuple
// order: the result is last-write-wins for duplicate tuples (SCATTERND.DUPLICATE, one of the
// admissible results) and does not depend on the thread count.
#include <algorithm>
#include <atomic>

#include "optimized/canonicalize.h"
#include "optimized/copy.h"
#include "optimized/indices.h"
#include "optimized/optimized.h"

namespace dmlcert::optimized {

namespace {

// A nest over dims [first, last) of a tensor, one stream, row-major, with a size-1 innermost dim
// appended so that for_each_outer visits every coordinate of those dims.
LoopNest tuple_nest(const Sizes& sizes, const std::vector<uint64_t>& strides, size_t first, size_t last) {
  LoopNest nest;
  for (size_t i = first; i < last; ++i)
    nest.dims.push_back(Dim{sizes[i], {static_cast<int64_t>(strides[i]), 0, 0}});
  nest.dims.push_back(Dim{});
  return nest;
}

// Element offsets of every coordinate of a tuple nest, in row-major order.
std::vector<int64_t> offsets_of(const LoopNest& nest) {
  std::vector<int64_t> out;
  out.reserve(nest.outer_count());
  for_each_outer(nest, 0, nest.outer_count(),
                 [&](const std::array<int64_t, kMaxStreams>& off) { out.push_back(off[0]); });
  return out;
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: spreads offsets evenly over threads
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ExecResult compute(const ScatterNdDesc& d, FeatureLevel level, const Bindings& b) {
  const size_t rank = d.input.sizes.size();
  const size_t k = d.indices.sizes[rank - 1];
  const size_t m = std::max<size_t>(d.input_dimension_count, k);  // meaningful input rank
  const size_t first_tuple_dim = rank - m, first_block_dim = rank - m + k;
  const size_t block_dims = rank - first_block_dim;
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  const auto idx_strides = effective_strides(d.indices);
  const auto upd_strides = effective_strides(d.updates);
  const size_t es = element_size(d.input.type);
  const int64_t esz = static_cast<int64_t>(es);

  // Pass 1: output offsets of the tuples.
  const std::vector<int64_t> idx_off = offsets_of(tuple_nest(d.indices.sizes, idx_strides, 0, rank - 1));
  const std::vector<int64_t> upd_off =
      offsets_of(tuple_nest(d.updates.sizes, upd_strides, 0, rank - block_dims));
  const uint64_t tuples = idx_off.size();
  if (upd_off.size() != tuples) {  // the validator's SCATTERND.UPDATES_SHAPE rules this out
    ExecResult r;
    r.status = Status::Error;
    r.message = "updates and indices disagree on the number of index tuples";
    return r;
  }
  std::vector<int64_t> out_off(tuples);
  const bool allow_negative = negative_indices_allowed(d.indices.type, level);
  std::atomic<bool> bad{false};
  dispatch_index(d.indices.type, [&](auto tag) {
    using I = typename decltype(tag)::type;
    const int64_t last_stride = static_cast<int64_t>(idx_strides[rank - 1]);
    parallel_for(tuples, tuples * k * sizeof(I), [&](uint64_t begin, uint64_t end) {
      bool ok = true;
      for (uint64_t t = begin; t < end; ++t) {
        int64_t off = 0;
        for (size_t j = 0; j < k; ++j) {
          const I v =
              load<I>(b.indices.data + (idx_off[t] + static_cast<int64_t>(j) * last_stride) * sizeof(I));
          const uint64_t dim = d.input.sizes[first_tuple_dim + j];
          if (!index_in_range(v, dim, allow_negative)) {
            ok = false;
            break;
          }
          off += normalize_index(v, dim) * static_cast<int64_t>(out_strides[first_tuple_dim + j]);
        }
        out_off[t] = off;
      }
      if (!ok) bad.store(true, std::memory_order_relaxed);
    });
  });
  if (bad.load())
    return index_range_rejection(d, level, b, "SCATTERND.INDEX_RANGE",
                                 "tensors.indices holds an out-of-range index");

  // Pass 2: output = input.
  {
    LoopNest copy;
    copy.streams = 2;
    for (size_t i = 0; i < rank; ++i)
      copy.dims.push_back(Dim{
          d.input.sizes[i], {static_cast<int64_t>(out_strides[i]), static_cast<int64_t>(in_strides[i]), 0}});
    canonicalize_for_copy(copy, 0);
    strided_copy(copy, es, b.output.data, b.input.data, OutputNext::UpdatedInPlace);
  }

  // Pass 3: the update blocks.
  LoopNest block;
  block.streams = 2;
  for (size_t i = first_block_dim; i < rank; ++i)
    block.dims.push_back(
        Dim{d.input.sizes[i],
            {static_cast<int64_t>(out_strides[i]),
             static_cast<int64_t>(upd_strides[rank - block_dims + (i - first_block_dim)]), 0}});
  canonicalize_for_copy(block, 0);
  const Dim inner = block.inner();
  const uint64_t block_elems = block.count();
  const uint64_t bytes = tuples * block_elems * es * 2;
  const unsigned threads = pool().size();
  auto copy_block_runs = [&](uint64_t t, const std::array<int64_t, kMaxStreams>& off, uint64_t first,
                             uint64_t n) {
    const int64_t j = static_cast<int64_t>(first);
    copy_run(b.output.data + (out_off[t] + off[0] + j * inner.stride[0]) * esz, inner.stride[0],
             b.updates.data + (upd_off[t] + off[1] + j * inner.stride[1]) * esz, inner.stride[1], n, es);
  };
  if (tuples >= 4 * threads) {
    // Many tuples: thread p owns the tuples whose output offset hashes to p. Duplicate tuples share
    // an offset, hence an owner, which applies them in tuple order.
    parallel_for(threads, bytes, [&](uint64_t begin, uint64_t end) {
      for (uint64_t owner = begin; owner < end; ++owner)
        for (uint64_t t = 0; t < tuples; ++t) {
          if (threads > 1 && mix(static_cast<uint64_t>(out_off[t])) % threads != owner) continue;
          for_each_outer(block, 0, block.outer_count(), [&](const std::array<int64_t, kMaxStreams>& off) {
            copy_block_runs(t, off, 0, inner.size);
          });
        }
    });
  } else {
    // Few, large blocks: split each block's elements over the threads; each thread applies every
    // tuple, in order, to its part.
    for_each_run_parallel(block, 2 * es,
                          [&](const std::array<int64_t, kMaxStreams>& off, uint64_t first, uint64_t n) {
                            for (uint64_t t = 0; t < tuples; ++t) copy_block_runs(t, off, first, n);
                          });
  }
  return {};
}

}  // namespace dmlcert::optimized
