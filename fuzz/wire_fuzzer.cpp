// libFuzzer target: the request frames the isolation child reads (backends/plugin/wire.h,
// host_request.h), answered as dmlcert-plugin-host answers them: decoded, the bindings mapped from
// shared memory behind guard pages, the optimized backend called. A malformed request must be
// answered with an error, never make the child touch memory outside its mapping. Any descriptor
// a request carries must also survive encoding and decoding unchanged.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "optimized/optimized.h"
#include "plugin/host_request.h"
#include "plugin/wire.h"

namespace {

using namespace dmlcert;
using namespace dmlcert::plugin;

// The fuzz input's shared memory: 1 MiB, as a harness that lays out small calls would make it.
constexpr uint64_t kMemoryBytes = uint64_t{1} << 20;

class UnmapWatch final : public CallWatch {
 public:
  void started(uint64_t, const GuardedView&) override {}
  void finished(uint64_t, uintptr_t begin, uintptr_t bytes, const Bindings&) override {
    ::munmap(reinterpret_cast<void*>(begin), bytes);
  }
};

int shared_memory() {
  const int fd = ::memfd_create("dmlcert-fuzz-wire", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(kMemoryBytes)) != 0) {
    std::perror("wire_fuzzer: shared memory");
    std::abort();
  }
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto backend = optimized::make_backend();
  static const int fd = shared_memory();
  static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  static UnmapWatch watch;
  const std::string request(reinterpret_cast<const char*>(data), size);
  answer_request(*backend, request, fd, page, watch);

  // A call request is kind, call id, level, descriptor: the descriptor must round-trip.
  wire::Reader rd(request);
  if (rd.u8() != static_cast<uint8_t>(wire::Request::Call)) return 0;
  rd.u64(), rd.u8();
  const auto desc = rd.desc();
  if (!desc) return 0;
  wire::Writer w;
  w.desc(*desc);
  const std::string bytes = w.bytes();
  wire::Reader back(bytes);
  if (back.desc() != desc) {
    std::fprintf(stderr, "wire_fuzzer: a descriptor changes through the wire format\n");
    std::abort();
  }
  return 0;
}
