// The messages between the harness and the isolation host (dmlcert-plugin-host): a small
// binary encoding of descriptors, length-prefixed frames on a socket, and the shared-memory
// layout of a call's buffers. Both sides are built from the same sources, so the encoding needs
// no versioning.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/operators.h"

namespace dmlcert::plugin::wire {

// The host finds its socket and its shared memory at these descriptors.
inline constexpr int kSocketFd = 3;
inline constexpr int kMemFd = 4;

class Writer {
 public:
  void u8(uint8_t v) { raw(&v, 1); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string& s);
  template <class T>
  void vec(const std::vector<T>& v) {
    u32(static_cast<uint32_t>(v.size()));
    raw(v.data(), v.size() * sizeof(T));
  }
  void desc(const OperatorDesc& d);
  const std::string& bytes() const { return buf_; }

 private:
  void raw(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : buf_(bytes) {}
  uint8_t u8() { return pod<uint8_t>(); }
  uint32_t u32() { return pod<uint32_t>(); }
  uint64_t u64() { return pod<uint64_t>(); }
  std::string str();
  template <class T>
  std::vector<T> vec() {
    uint32_t n = u32();
    std::vector<T> v;
    if (!take(n * sizeof(T))) return v;
    v.resize(n);
    if (n) std::memcpy(v.data(), buf_.data() + pos_ - n * sizeof(T), n * sizeof(T));
    return v;
  }
  std::optional<OperatorDesc> desc();
  bool ok() const { return ok_; }

 private:
  bool take(size_t n) {
    if (!ok_ || buf_.size() - pos_ < n) return ok_ = false;
    pos_ += n;
    return true;
  }
  template <class T>
  T pod() {
    T v{};
    if (take(sizeof(T))) std::memcpy(&v, buf_.data() + pos_ - sizeof(T), sizeof(T));
    return v;
  }
  const std::string& buf_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// One binding's place in the shared memory: a run of whole pages starting at `offset`, with the
// binding's `size` bytes at its very end (so the page after it can be a guard) and canary bytes
// before them.
struct Region {
  bool present = false;
  uint64_t offset = 0;  // in the shared memory, page aligned
  uint64_t bytes = 0;   // whole pages
  uint64_t size = 0;    // the binding's bytes, at [offset + bytes - size, offset + bytes)
  uint64_t data_offset() const { return offset + bytes - size; }
};
struct CallLayout {
  Region regions[kRoleCount];  // by Role
  uint64_t total_bytes = 0;    // shared memory needed, fault page included
};
// Lays out the bindings after the fault page. `sizes` are the binding sizes by role; roles the
// operator lacks are absent.
CallLayout lay_out(const std::vector<Role>& roles, const uint64_t (&sizes)[kRoleCount], uint64_t page);
void write(Writer& w, const CallLayout& l);
CallLayout read_layout(Reader& r);

// The first page of the shared memory: what the host's signal handler saw before it died.
struct FaultRecord {
  static constexpr uint32_t kMagic = 0x444d4c46;  // "DMLF"
  uint32_t magic;
  uint32_t fault;  // a Fault value
  uint32_t signal;
  uint32_t role;  // the binding the address hit (a Role value), or kRoleCount
  uint64_t address;
  int64_t offset;  // of the address from the start of that binding
  int32_t code;    // si_code: > 0 when the kernel raised the signal for a memory access
};

// Canary bytes in front of every binding.
inline constexpr uint8_t kCanary = 0xCD;
inline constexpr uint64_t kMinCanaryBytes = 64;

enum class Io { Ok, Eof, Timeout, Error };
// Length-prefixed frames. send_frame never raises SIGPIPE.
Io send_frame(int fd, const std::string& payload);
// Waits at most timeout_ms (negative: forever) for the whole frame.
Io recv_frame(int fd, std::string& payload, int timeout_ms);

}  // namespace dmlcert::plugin::wire
