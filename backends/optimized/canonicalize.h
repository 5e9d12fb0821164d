// Canonical loop nests. Every operator call is first rewritten as the smallest loop nest that
// does the same thing: negative strides folded into a base offset, size-1 dimensions dropped,
// and dimensions that are contiguous in every stream merged into one. A strided, broadcast or
// reversed descriptor of rank 8 often becomes one or two loops this way, and the innermost loop
// is what the kernels vectorize.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "optimized/thread_pool.h"

namespace dmlcert::optimized {

// Up to this many streams (tensors) walk the same coordinates: output, input, indices.
inline constexpr int kMaxStreams = 3;

struct Dim {
  uint64_t size = 1;
  std::array<int64_t, kMaxStreams> stride{};  // in elements of each stream's tensor
  int kind = 0;                               // dims of different kinds never merge (REDUCE: reduced vs kept)
};

struct LoopNest {
  int streams = 1;
  std::array<int64_t, kMaxStreams> base{};  // element offset of coordinate 0 in each stream
  std::vector<Dim> dims;                    // outermost first

  uint64_t count() const;        // number of coordinates (product of sizes)
  uint64_t outer_count() const;  // coordinates of every dim but the innermost
  const Dim& inner() const { return dims.back(); }
};

// Drops size-1 dimensions and merges each pair of neighbours (outer i, inner i+1) whose strides
// have the same kind and satisfy stride[i] == stride[i+1] * size[i+1] in every stream. Keeps the order of
// dimensions, so row-major coordinate order is preserved (REDUCE's ARG* indices rely on it). Always leaves at
// least one dimension (size 1 when everything was dropped).
void simplify(LoopNest& nest);

// For data movement, where the order of visiting coordinates is free: flips every dimension
// whose stride in `stream` is negative (walking it backwards, with the base moved to its far
// end), then orders dimensions by decreasing |stride| in `stream`, then simplifies.
void canonicalize_for_copy(LoopNest& nest, int stream);

// Walks the coordinates [begin, end) of the nest's outer dimensions (all but the innermost), in
// row-major order, calling fn(offsets) with each stream's element offset of that coordinate's
// innermost run start.
template <class F>
void for_each_outer(const LoopNest& nest, uint64_t begin, uint64_t end, F&& fn) {
  const int outer_dims = static_cast<int>(nest.dims.size()) - 1;
  std::array<uint64_t, 16> coord{};
  std::array<int64_t, kMaxStreams> off = nest.base;
  // Decompose `begin` into a coordinate.
  uint64_t rest = begin;
  for (int d = outer_dims - 1; d >= 0; --d) {
    coord[d] = rest % nest.dims[d].size;
    rest /= nest.dims[d].size;
    for (int s = 0; s < nest.streams; ++s) off[s] += static_cast<int64_t>(coord[d]) * nest.dims[d].stride[s];
  }
  for (uint64_t i = begin; i < end; ++i) {
    fn(off);
    for (int d = outer_dims - 1; d >= 0; --d) {
      const Dim& dim = nest.dims[d];
      if (++coord[d] < dim.size) {
        for (int s = 0; s < nest.streams; ++s) off[s] += dim.stride[s];
        break;
      }
      for (int s = 0; s < nest.streams; ++s) off[s] -= static_cast<int64_t>(dim.size - 1) * dim.stride[s];
      coord[d] = 0;
    }
  }
}

// Runs the nest's innermost runs over the thread pool: fn(offsets, first, n) handles elements
// [first, first + n) of the innermost run whose start offsets are `offsets`. Long runs of a nest
// with few runs are cut into chunks, so a single huge run still spreads over the threads.
// `element_bytes` estimates the memory touched per coordinate (to keep small calls inline).
// range_done() runs on the thread that handled a range, after its last fn: once per range of the
// pool, not once per run (strided_copy fences its streaming stores there).
struct NoRangeDone {
  void operator()() const {}
};
template <class F, class G = NoRangeDone>
void for_each_run_parallel(const LoopNest& nest, uint64_t element_bytes, F&& fn, G&& range_done = {}) {
  const uint64_t inner = nest.inner().size;
  const uint64_t outer = nest.outer_count();
  const uint64_t chunk_elems =
      std::max<uint64_t>(1, (uint64_t{256} << 10) / std::max<uint64_t>(1, element_bytes));
  const uint64_t chunks = outer >= 64 ? 1 : (inner + chunk_elems - 1) / chunk_elems;
  const uint64_t per_chunk = (inner + chunks - 1) / chunks;
  parallel_for(outer * chunks, outer * inner * element_bytes, [&](uint64_t begin, uint64_t end) {
    if (chunks == 1) {
      for_each_outer(nest, begin, end,
                     [&](const std::array<int64_t, kMaxStreams>& off) { fn(off, 0, inner); });
      range_done();
      return;
    }
    // Items are (outer coordinate, chunk) pairs, chunk fastest.
    uint64_t item = begin;
    while (item < end) {
      const uint64_t o = item / chunks;
      const uint64_t c_begin = item % chunks;
      const uint64_t c_end = std::min<uint64_t>(chunks, c_begin + (end - item));
      for_each_outer(nest, o, o + 1, [&](const std::array<int64_t, kMaxStreams>& off) {
        for (uint64_t c = c_begin; c < c_end; ++c) {
          const uint64_t j0 = c * per_chunk;
          if (j0 < inner) fn(off, j0, std::min(per_chunk, inner - j0));
        }
      });
      item += c_end - c_begin;
    }
    range_done();
  });
}

// Runs a nest of at least two dims as tiles of its two innermost dims (rows of runs) over the
// thread pool: fn(offsets, r0, r1, next) handles rows [r0, r1) of the tile whose row 0 starts at
// `offsets`, so that a kernel walks many short runs with one call; `next` points to the offsets of
// the tile the same thread handles next (null when there is none, or when tiles are cut), for
// prefetching across tiles. A tile's rows are cut into blocks of about 256 KiB, so a single tile
// still spreads over the threads. range_done() as for for_each_run_parallel.
template <class F, class G = NoRangeDone>
void for_each_tile_parallel(const LoopNest& nest, uint64_t element_bytes, F&& fn, G&& range_done = {}) {
  using Offsets = std::array<int64_t, kMaxStreams>;
  const uint64_t rows = nest.dims[nest.dims.size() - 2].size;
  const uint64_t row_bytes = std::max<uint64_t>(1, nest.inner().size * element_bytes);
  const uint64_t rows_per_item = std::max<uint64_t>(1, (uint64_t{256} << 10) / row_bytes);
  const uint64_t blocks = (rows + rows_per_item - 1) / rows_per_item;
  // The tiles' own nest: the outer dims, then a unit inner dim standing for the tile.
  LoopNest tiles = nest;
  tiles.dims.resize(nest.dims.size() - 2);
  tiles.dims.push_back(Dim{});
  const uint64_t outer = tiles.outer_count();
  parallel_for(outer * blocks, outer * rows * row_bytes, [&](uint64_t begin, uint64_t end) {
    if (blocks == 1) {  // whole tiles: one walk over the range, each tile run once the next is known
      Offsets pending{};
      bool have = false;
      for_each_outer(tiles, begin, end, [&](const Offsets& off) {
        if (have) fn(pending, uint64_t{0}, rows, &off);
        pending = off;
        have = true;
      });
      if (have) fn(pending, uint64_t{0}, rows, static_cast<const Offsets*>(nullptr));
      range_done();
      return;
    }
    for (uint64_t item = begin; item < end; ++item) {
      const uint64_t r0 = (item % blocks) * rows_per_item, r1 = std::min(rows, r0 + rows_per_item);
      for_each_outer(tiles, item / blocks, item / blocks + 1,
                     [&](const Offsets& off) { fn(off, r0, r1, static_cast<const Offsets*>(nullptr)); });
    }
    range_done();
  });
}

}  // namespace dmlcert::optimized
