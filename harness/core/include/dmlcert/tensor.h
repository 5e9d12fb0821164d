// Tensor descriptors (docs/semantics.md, "Tensor descriptors") and the mapping between logical row-major
// data and strided memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "dmlcert/dtype.h"

namespace dmlcert {

using Sizes = std::vector<uint32_t>;
using Coord = std::vector<uint32_t>;

struct TensorDesc {
  DataType type = DataType::FLOAT32;
  Sizes sizes;
  std::optional<std::vector<uint32_t>> strides;  // in elements; absent means packed row-major
  uint64_t total_bytes = 0;                      // TotalTensorSizeInBytes

  uint32_t rank() const { return static_cast<uint32_t>(sizes.size()); }
  bool operator==(const TensorDesc&) const = default;
};

// Packed row-major strides for sizes. Saturates at UINT64_MAX per entry rather than wrapping.
std::vector<uint64_t> packed_strides(const Sizes& sizes);
// The strides the tensor really uses: its own, or packed ones when absent. Only meaningful when
// strides (if present) have rank() entries.
std::vector<uint64_t> effective_strides(const TensorDesc& t);
// Product of sizes, or nullopt when it overflows 64 bits.
std::optional<uint64_t> element_count(const Sizes& sizes);
// dot(Sizes-1, Strides) + 1 (the element span, T.ELEMENT_LIMIT), or nullopt on 64-bit overflow
// or when a size is 0.
std::optional<uint64_t> element_span(const TensorDesc& t);
// roundup4(element_span * elementSize) (T.TOTAL_BYTES), or nullopt on overflow.
std::optional<uint64_t> min_implied_bytes(const TensorDesc& t);
// A packed descriptor with total_bytes set to the minimum implied size.
TensorDesc packed_desc(DataType type, Sizes sizes);

// Calls f(coord) for every coordinate of sizes in row-major order (last axis fastest). A template,
// so that f is inlined: the reference and the case buffers visit every element through it.
template <class F>
void for_each_coord(const Sizes& sizes, F&& f) {
  for (uint32_t s : sizes)
    if (s == 0) return;
  Coord c(sizes.size(), 0);
  while (true) {
    f(static_cast<const Coord&>(c));
    size_t i = sizes.size();
    while (i > 0) {
      --i;
      if (++c[i] < sizes[i]) break;
      c[i] = 0;
      if (i == 0) return;
    }
    if (sizes.empty()) return;
  }
}
// Calls f(offset) with the element offset dot(coord, strides) of every coordinate of sizes, in
// row-major order: the offset is carried from one element to the next rather than recomputed
// (the arithmetic wraps modulo 2^64, as element_offset's does). strides has sizes.size() entries.
template <class F>
void for_each_offset(const Sizes& sizes, const std::vector<uint64_t>& strides, F&& f) {
  for (uint32_t s : sizes)
    if (s == 0) return;
  const size_t rank = sizes.size();
  if (rank == 0) {
    f(uint64_t{0});
    return;
  }
  Coord c(rank, 0);
  const uint32_t inner = sizes[rank - 1];
  const uint64_t inner_stride = strides[rank - 1];
  uint64_t row = 0;  // the offset of the current row's first element
  while (true) {
    uint64_t off = row;
    for (uint32_t k = 0; k < inner; ++k, off += inner_stride) f(off);
    size_t i = rank - 1;
    while (true) {
      if (i == 0) return;
      --i;
      row += strides[i];
      if (++c[i] < sizes[i]) break;
      row -= strides[i] * sizes[i];
      c[i] = 0;
    }
  }
}
// Row-major flattened index of coord within sizes, and back.
uint64_t flat_index(const Coord& coord, const Sizes& sizes);
Coord unravel(uint64_t flat, const Sizes& sizes);
// Element offset dot(coord, strides).
uint64_t element_offset(const Coord& coord, const std::vector<uint64_t>& strides);

// Logical data: element_count(sizes) elements of the type, packed row-major. This is the form
// of data in case files and of expected outputs.
using Bytes = std::vector<std::byte>;

// Places logical data into a zero-filled buffer of `buffer_bytes` following the descriptor's
// strides. Elements that share memory (0 strides) are written more than once, last one wins.
// The buffer has room for `spare_capacity` more bytes, so that a caller appending guard bytes
// does not copy it again.
Bytes to_memory(const TensorDesc& t, std::span<const std::byte> logical, uint64_t buffer_bytes,
                uint64_t spare_capacity = 0);
// Reads the logical elements of t out of memory.
Bytes from_memory(const TensorDesc& t, std::span<const std::byte> memory);

}  // namespace dmlcert
