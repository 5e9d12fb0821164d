// The heap case buffers' checks after a call: each one a backend's misbehaviour must trip, wherever
// in the buffer it writes (the checks compare a vector at a time, so a write at the first byte, in
// the middle and at the last byte are all cases of their own).
#include "dmlcert/case_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dmlcert/runner.h"

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

// What each role binds under `dmlcert certify`'s cap (cmd_certify.cpp: the case footprint's limit,
// kDefaultMaxCaseBytes): a valid case's huge output in full, while an invalid case that declares
// any size binds at most kInvalidCaseBindingCap, so that its rejection touches no more.
struct BindingCase {
  std::string name;
  CaseClass case_class;
  uint64_t output_total_bytes;
  std::optional<uint64_t> output_binding;  // nullopt: the case is not bound at all
};
void PrintTo(const BindingCase& c, std::ostream* os) {
  *os << c.name;
}
class CertifyBindings : public ::testing::TestWithParam<BindingCase> {};

TEST_P(CertifyBindings, BindValidHugeOutputsAndCapInvalidDeclarations) {
  const auto& c = GetParam();
  const uint32_t elements = static_cast<uint32_t>(std::min<uint64_t>(c.output_total_bytes / 4, UINT32_MAX));
  SliceDesc d;
  // A broadcast input: one element in memory, so that only the output's size is at stake.
  d.input = TensorDesc{DataType::FLOAT32, {elements}, std::vector<uint32_t>{0}, 4};
  d.output = TensorDesc{DataType::FLOAT32, {elements}, std::nullopt, c.output_total_bytes};
  d.offsets = {0}, d.sizes = {elements}, d.strides = {1};
  Case k;
  k.op = d;
  std::string why;
  const auto sizes = binding_sizes(k, c.case_class, kDefaultMaxCaseBytes, &why);
  ASSERT_EQ(sizes.has_value(), c.output_binding.has_value()) << why;
  if (sizes) {
    EXPECT_EQ((*sizes)[static_cast<size_t>(Role::OUTPUT)], *c.output_binding);
  } else {
    EXPECT_NE(why.find("tensors.output.total_bytes"), std::string::npos) << why;
  }
}

constexpr uint64_t kMiB = uint64_t{1} << 20;
INSTANTIATE_TEST_SUITE_P(
    CaseBuffers, CertifyBindings,
    ::testing::Values(BindingCase{"valid_56_mib_output_bound_whole", CaseClass::Valid, 56 * kMiB, 56 * kMiB},
                      BindingCase{"invalid_declaring_a_tebibyte_binds_the_cap", CaseClass::Invalid,
                                  uint64_t{1} << 40, kInvalidCaseBindingCap},
                      BindingCase{"invalid_declaring_56_mib_binds_the_cap", CaseClass::Invalid, 56 * kMiB,
                                  kInvalidCaseBindingCap},
                      BindingCase{"valid_past_the_case_limit_not_bound", CaseClass::Valid,
                                  kDefaultMaxCaseBytes + 4, std::nullopt}),
    [](const auto& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert::test
