// The optimized backend's row gather (GATHER_ELEMENTS along a contiguous innermost axis of 4-byte
// data, backends/optimized/gather_elements.cpp) on outputs large enough for its streaming stores:
// the gathers go through a buffer of kGatherChunk elements there, so rows longer than a chunk, rows
// whose output starts off a 32-byte boundary, and rows whose length leaves a tail all have to give
// the bytes a plain loop gives.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "dmlcert/operators.h"
#include "op_tester.h"

namespace dmlcert::test {
namespace {

struct RowGatherCase {
  std::string name;
  uint32_t rows, cols;  // the output is [rows, cols] FLOAT32; at 4 MiB or more it streams
  size_t skew;          // the output's bytes past a 64-byte boundary
  bool negative;        // INT32 indices, half of them negative (feature level 5_0 allows them)
};
void PrintTo(const RowGatherCase& c, std::ostream* os) {
  *os << c.name;
}

class OptimizedRowGather : public ::testing::TestWithParam<RowGatherCase> {};

TEST_P(OptimizedRowGather, WritesWhatAPlainLoopWrites) {
  const RowGatherCase& c = GetParam();
  GatherElementsDesc d;
  d.input = packed_desc(DataType::FLOAT32, {c.rows, c.cols});
  d.indices = packed_desc(DataType::INT32, {c.rows, c.cols});
  d.output = packed_desc(DataType::FLOAT32, {c.rows, c.cols});
  d.axis = 1;
  const size_t n = size_t{c.rows} * c.cols;
  std::mt19937 rng(5);
  std::vector<uint32_t> input(n);
  std::vector<int32_t> indices(n);
  for (uint32_t& v : input) v = static_cast<uint32_t>(rng());
  for (int32_t& k : indices) {
    k = static_cast<int32_t>(rng() % c.cols);
    if (c.negative && rng() % 2) k -= static_cast<int32_t>(c.cols);
  }
  Bytes expected(c.skew + 4 * n + 64, std::byte{0xA5});
  for (size_t i = 0; i < n; ++i) {
    const size_t row = i / c.cols;
    const int32_t k = indices[i] < 0 ? indices[i] + static_cast<int32_t>(c.cols) : indices[i];
    std::memcpy(expected.data() + c.skew + 4 * i, &input[row * c.cols + static_cast<size_t>(k)], 4);
  }
  Bytes buffer(64 + expected.size(), std::byte{0xA5});
  const size_t boundary = (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
  Bindings b;
  b.input = {reinterpret_cast<const std::byte*>(input.data()), 4 * n};
  b.indices = {reinterpret_cast<const std::byte*>(indices.data()), 4 * n};
  b.output = {buffer.data() + boundary + c.skew, 4 * n};
  const ExecResult r = optimized_backend().execute(d, FeatureLevel::L5_0, b);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  const Bytes got(buffer.begin() + static_cast<std::ptrdiff_t>(boundary),
                  buffer.begin() + static_cast<std::ptrdiff_t>(boundary + expected.size()));
  const auto diff = std::mismatch(expected.begin(), expected.end(), got.begin());
  EXPECT_TRUE(diff.first == expected.end()) << "first difference at byte " << (diff.first - expected.begin());
}

// 260 rows of 4100 are 4,264,000 bytes, past the 4 MiB at which the row gather streams; 4100 is a
// chunk of 4096 and a tail of 4 (of 0-7 after the elements stored before the first 32-byte
// boundary).
INSTANTIATE_TEST_SUITE_P(Streamed, OptimizedRowGather,
                         ::testing::Values(RowGatherCase{"aligned", 260, 4100, 0, false},
                                           RowGatherCase{"four_bytes_off", 260, 4100, 4, false},
                                           RowGatherCase{"twenty_eight_bytes_off", 260, 4100, 28, false},
                                           RowGatherCase{"negative_indices", 260, 4100, 12, true},
                                           RowGatherCase{"rows_of_two_chunks", 130, 8200, 0, false},
                                           // Not 4-byte aligned: no streaming store at all.
                                           RowGatherCase{"one_byte_off", 260, 4100, 1, false},
                                           // 4 MiB less a row: ordinary stores.
                                           RowGatherCase{"below_the_threshold", 255, 4100, 4, true}),
                         [](const auto& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert::test
