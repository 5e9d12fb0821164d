// What the isolation child does with a request frame (backends/plugin/host_request.h): a
// malformed request, or a layout that does not fit the shared memory, is answered with an error
// naming what is wrong, before anything is mapped; a well-formed call runs. And the two encodings
// a descriptor travels in (the wire format to the child, the C ABI to a plugin) carry every
// corpus case unchanged.
#include "plugin/host_request.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "dmlcert/case.h"
#include "plugin/abi_convert.h"
#include "plugin/wire.h"
#include "reference/reference.h"

namespace dmlcert::plugin {
namespace {

constexpr uint64_t kMemoryBytes = 64 << 10;

class NoWatch final : public CallWatch {
 public:
  void started(uint64_t, const GuardedView&) override { ++calls; }
  void finished(uint64_t, uintptr_t begin, uintptr_t bytes, const Bindings&) override {
    ::munmap(reinterpret_cast<void*>(begin), bytes);
  }
  int calls = 0;
};

uint64_t page_size() {
  return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

// A SLICE1 copy of 16 FLOAT32 elements, valid at 5_0.
OperatorDesc slice1_copy() {
  Slice1Desc d;
  d.input = packed_desc(DataType::FLOAT32, {16});
  d.output = packed_desc(DataType::FLOAT32, {16});
  d.input_window_offsets = {0};
  d.input_window_sizes = {16};
  d.input_window_strides = {1};
  return d;
}

// A call request for slice1_copy() with its layout edited by `edit`; `truncate` cuts bytes off.
std::string call_request(const std::function<void(CallLayout&)>& edit, size_t truncate = 0,
                         uint8_t level = 7) {
  const OperatorDesc d = slice1_copy();
  std::array<uint64_t, kRoleCount> sizes{};
  sizes[static_cast<size_t>(Role::INPUT)] = sizes[static_cast<size_t>(Role::OUTPUT)] = 64;
  CallLayout layout = lay_out(roles(op_kind(d)), sizes, page_size());
  edit(layout);
  wire::Writer w;
  w.u8(static_cast<uint8_t>(wire::Request::Call));
  w.u64(1);
  w.u8(level);
  w.desc(d);
  wire::write(w, layout);
  std::string bytes = w.bytes();
  bytes.resize(bytes.size() - std::min(truncate, bytes.size()));
  return bytes;
}

Region& region(CallLayout& l, Role r) {
  return l.regions[static_cast<size_t>(r)];
}

struct RequestRow {
  std::string name;
  std::string request;
  Status status;
  std::string message;  // a substring of the answer's message
  bool mapped = false;  // whether the bindings were mapped and the backend called
};
void PrintTo(const RequestRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<RequestRow> request_rows() {
  const auto keep = [](CallLayout&) {};
  return {
      {"AWellFormedCallRuns", call_request(keep), Status::Ok, "", true},
      {"TruncatedDescriptor", call_request(keep, 120), Status::Error, "plugin host: malformed request"},
      {"TruncatedLayout", call_request(keep, 3), Status::Error, "plugin host: malformed request"},
      {"FeatureLevelOutOfRange", call_request(keep, 0, 200), Status::Error, "plugin host: malformed request"},
      {"LayoutLargerThanTheSharedMemory",
       call_request([](CallLayout& l) { l.total_bytes = kMemoryBytes + page_size(); }), Status::Error,
       "malformed layout: larger than the shared memory"},
      {"RegionPastTheLayoutsEnd",
       call_request([](CallLayout& l) { region(l, Role::OUTPUT).offset = l.total_bytes; }), Status::Error,
       "the output region is not whole pages between guard pages inside the shared memory"},
      {"RegionOnTheFaultRecordsPage", call_request([](CallLayout& l) { region(l, Role::INPUT).offset = 0; }),
       Status::Error, "the input region is not whole pages"},
      {"RegionNotPageAligned", call_request([](CallLayout& l) { region(l, Role::INPUT).offset += 8; }),
       Status::Error, "the input region is not whole pages"},
      {"RegionOfNoPage", call_request([](CallLayout& l) { region(l, Role::INPUT).bytes = 0; }), Status::Error,
       "the input region is not whole pages"},
      {"OffsetThatWrapsAround",
       call_request([](CallLayout& l) { region(l, Role::INPUT).offset = UINT64_MAX - page_size() + 1; }),
       Status::Error, "the input region is not whole pages"},
      {"BindingLargerThanItsRegion",
       call_request([](CallLayout& l) { region(l, Role::OUTPUT).size = region(l, Role::OUTPUT).bytes + 1; }),
       Status::Error, "the output binding does not fit its region with its canary bytes"},
      {"BindingWithoutRoomForItsCanary",
       call_request([](CallLayout& l) { region(l, Role::OUTPUT).size = region(l, Role::OUTPUT).bytes; }),
       Status::Error, "the output binding does not fit its region"},
      {"RegionsOverlap",
       call_request([](CallLayout& l) { region(l, Role::OUTPUT).offset = region(l, Role::INPUT).offset; }),
       Status::Error, "two regions overlap"},
      // Every region lies between guard pages: none may start right after the fault record's page,
      // end at the end of the memory, or touch its neighbour.
      {"RegionWithoutAGuardPageBefore",
       call_request([](CallLayout& l) { region(l, Role::INPUT).offset = page_size(); }), Status::Error,
       "the input region is not whole pages between guard pages"},
      {"RegionWithoutAGuardPageAfter", call_request([](CallLayout& l) { l.total_bytes -= page_size(); }),
       Status::Error, "the output region is not whole pages between guard pages"},
      {"RegionsWithoutAGuardPageBetween", call_request([](CallLayout& l) {
         region(l, Role::OUTPUT).offset = region(l, Role::INPUT).offset + region(l, Role::INPUT).bytes;
       }),
       Status::Error, "two regions overlap or share no guard page"},
  };
}

class HostRequest : public ::testing::TestWithParam<RequestRow> {};

TEST_P(HostRequest, IsAnsweredWithoutTouchingMemoryOutsideItsMapping) {
  const int fd = ::memfd_create("host-request-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, kMemoryBytes), 0);
  const auto backend = reference::make_backend();
  NoWatch watch;
  const std::string answer = answer_request(*backend, GetParam().request, fd, page_size(), watch);
  ::close(fd);
  wire::Reader rd(answer);
  const auto status = static_cast<Status>(rd.u32());
  const std::string message = rd.str();
  ASSERT_TRUE(rd.ok());
  EXPECT_EQ(status, GetParam().status) << message;
  EXPECT_NE(message.find(GetParam().message), std::string::npos) << message;
  EXPECT_EQ(watch.calls, GetParam().mapped ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(Requests, HostRequest, ::testing::ValuesIn(request_rows()),
                         [](const auto& row) { return row.param.name; });

TEST(HostRequest, APingAndAnEmptyFrameGetTheEmptyAnswer) {
  const auto backend = reference::make_backend();
  NoWatch watch;
  EXPECT_EQ(answer_request(*backend, std::string(1, static_cast<char>(wire::Request::Ping)), -1, 4096, watch),
            "");
  EXPECT_EQ(answer_request(*backend, "", -1, 4096, watch), "");
}

// Every corpus case's descriptor through both encodings.
TEST(DescriptorEncodings, CarryEveryCorpusCaseUnchanged) {
  const LoadedCases loaded = load_cases({std::string(DMLCERT_SOURCE_DIR) + "/corpora"});
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors.front().to_string();
  ASSERT_GT(loaded.cases.size(), 50u);
  for (const Case& c : loaded.cases) {
    wire::Writer w;
    w.desc(c.op);
    const std::string bytes = w.bytes();
    wire::Reader rd(bytes);
    EXPECT_EQ(rd.desc(), std::optional<OperatorDesc>(c.op)) << c.name;
    const AbiOperator abi(c.op);
    if (abi.unrepresentable()) continue;
    std::string error;
    EXPECT_EQ(from_abi(*abi.get(), &error), std::optional<OperatorDesc>(c.op)) << c.name << ": " << error;
  }
}

// Strides given with no entry (a descriptor of rank 0) are not the same as strides left out; the
// ABI keeps them apart by a pointer that is not null.
TEST(DescriptorEncodings, KeepEmptyStridesApartFromNoStrides) {
  for (bool with_strides : {false, true}) {
    Slice1Desc d = std::get<Slice1Desc>(slice1_copy());
    d.input.sizes.clear();
    if (with_strides) d.input.strides = std::vector<uint32_t>{};
    const AbiOperator abi{OperatorDesc{d}};
    ASSERT_FALSE(abi.unrepresentable());
    std::string error;
    EXPECT_EQ(from_abi(*abi.get(), &error), std::optional<OperatorDesc>(d))
        << "strides given: " << with_strides;
  }
}

}  // namespace
}  // namespace dmlcert::plugin
