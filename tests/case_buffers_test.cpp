// The heap case buffers' checks after a call: each one a backend's misbehaviour must trip, wherever
// in the buffer it writes (the checks compare a vector at a time, so a write at the first byte, in
// the middle and at the last byte are all cases of their own).
#include "dmlcert/case_buffers.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace dmlcert::test {
namespace {

struct FillCase {
  std::string name;
  uint64_t size;
  std::vector<uint64_t> changed;  // bytes that do not hold the fill
  bool all_fill;
};

void PrintTo(const FillCase& c, std::ostream* os) {
  *os << c.name;
}
class AllBytesAre : public ::testing::TestWithParam<FillCase> {};

TEST_P(AllBytesAre, FindsAnyByteThatDiffers) {
  const auto& c = GetParam();
  constexpr std::byte kFill{0xA5};
  std::vector<std::byte> bytes(c.size, kFill);
  for (uint64_t at : c.changed) bytes[at] = std::byte{0};
  EXPECT_EQ(all_bytes_are(bytes.data(), bytes.size(), kFill), c.all_fill);
}

INSTANTIATE_TEST_SUITE_P(CaseBuffers, AllBytesAre,
                         ::testing::Values(FillCase{"empty", 0, {}, true}, FillCase{"one_byte", 1, {}, true},
                                           FillCase{"one_byte_changed", 1, {0}, false},
                                           FillCase{"untouched", 1000, {}, true},
                                           FillCase{"first_byte_changed", 1000, {0}, false},
                                           FillCase{"middle_byte_changed", 1000, {517}, false},
                                           FillCase{"last_byte_changed", 1000, {999}, false},
                                           FillCase{"every_byte_changed_alike", 3, {0, 1, 2}, false}),
                         [](const auto& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert::test
