#include "dmlcert/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace dmlcert {

std::vector<uint64_t> packed_strides(const Sizes& sizes) {
  std::vector<uint64_t> strides(sizes.size());
  uint64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    // Saturate: a packed tensor this large fails T.ELEMENT_LIMIT long before this matters.
    s = (sizes[i] != 0 && s > std::numeric_limits<uint64_t>::max() / sizes[i])
            ? std::numeric_limits<uint64_t>::max()
            : s * sizes[i];
  }
  return strides;
}

std::vector<uint64_t> effective_strides(const TensorDesc& t) {
  if (t.strides && t.strides->size() == t.sizes.size())
    return std::vector<uint64_t>(t.strides->begin(), t.strides->end());
  return packed_strides(t.sizes);
}

std::optional<uint64_t> element_count(const Sizes& sizes) {
  uint64_t n = 1;
  for (uint32_t s : sizes) {
    if (s != 0 && n > std::numeric_limits<uint64_t>::max() / s) return std::nullopt;
    n *= s;
  }
  return n;
}

std::optional<uint64_t> element_span(const TensorDesc& t) {
  const auto strides = effective_strides(t);
  // Each term is (size-1) * stride < 2^32 * 2^64; use 128-bit arithmetic and check the sum.
  unsigned __int128 span = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] == 0) return std::nullopt;
    span += static_cast<unsigned __int128>(t.sizes[i] - 1) * strides[i];
    if (span > std::numeric_limits<uint64_t>::max()) return std::nullopt;
  }
  return static_cast<uint64_t>(span);
}

std::optional<uint64_t> min_implied_bytes(const TensorDesc& t) {
  auto span = element_span(t);
  if (!span) return std::nullopt;
  unsigned __int128 bytes = static_cast<unsigned __int128>(*span) * element_size(t.type);
  bytes = (bytes + 3) / 4 * 4;
  if (bytes > std::numeric_limits<uint64_t>::max()) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

TensorDesc packed_desc(DataType type, Sizes sizes) {
  TensorDesc t{type, std::move(sizes), std::nullopt, 0};
  t.total_bytes = min_implied_bytes(t).value_or(0);
  return t;
}

uint64_t flat_index(const Coord& coord, const Sizes& sizes) {
  uint64_t idx = 0;
  for (size_t i = 0; i < sizes.size(); ++i) idx = idx * sizes[i] + coord[i];
  return idx;
}

Coord unravel(uint64_t flat, const Sizes& sizes) {
  Coord c(sizes.size(), 0);
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) continue;
    c[i] = static_cast<uint32_t>(flat % sizes[i]);
    flat /= sizes[i];
  }
  return c;
}

uint64_t element_offset(const Coord& coord, const std::vector<uint64_t>& strides) {
  uint64_t off = 0;
  for (size_t i = 0; i < coord.size(); ++i) off += static_cast<uint64_t>(coord[i]) * strides[i];
  return off;
}

Bytes to_memory(const TensorDesc& t, std::span<const std::byte> logical, uint64_t buffer_bytes,
                uint64_t spare_capacity) {
  Bytes memory;
  memory.reserve(buffer_bytes + spare_capacity);
  const size_t es = element_size(t.type);
  const auto strides = effective_strides(t);
  // Packed: the logical bytes are the memory's first bytes (one copy, not one per element).
  if (strides == packed_strides(t.sizes) && logical.size() <= buffer_bytes) {
    memory.assign(logical.begin(), logical.end());
    memory.resize(buffer_bytes, std::byte{0});
    return memory;
  }
  memory.resize(buffer_bytes, std::byte{0});
  uint64_t i = 0;
  for_each_offset(t.sizes, strides, [&](uint64_t element) {
    const uint64_t off = element * es;
    if ((i + 1) * es <= logical.size() && off + es <= memory.size())
      std::memcpy(memory.data() + off, logical.data() + i * es, es);
    ++i;
  });
  return memory;
}

Bytes from_memory(const TensorDesc& t, std::span<const std::byte> memory) {
  const size_t es = element_size(t.type);
  const auto strides = effective_strides(t);
  Bytes logical(element_count(t.sizes).value_or(0) * es, std::byte{0});
  uint64_t i = 0;
  for_each_offset(t.sizes, strides, [&](uint64_t element) {
    const uint64_t off = element * es;
    if (off + es <= memory.size()) std::memcpy(logical.data() + i * es, memory.data() + off, es);
    ++i;
  });
  return logical;
}

}  // namespace dmlcert
