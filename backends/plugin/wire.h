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
#include "plugin/call_memory.h"

namespace dmlcert::plugin::wire {

// The child finds its socket and its shared memory at these descriptors.
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
  // What was read does not hold together: the message is malformed.
  void fail() { ok_ = false; }

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

// A call's memory layout on the wire.
void write(Writer& w, const CallLayout& l);
CallLayout read_layout(Reader& r);

// What the harness asks the child.
enum class Request : uint8_t {
  Call = 1,  // level, descriptor, layout: run one call
  Ping = 2,  // answered at once: shows the child is alive (and no late write killed it) after a call
};

// A frame: kFrameMagic, the payload's length, the payload (both numbers 4 bytes, host order). The
// magic number lets the harness tell its frames from bytes the plugin wrote into the socket's
// descriptor (a plugin that writes into descriptors it does not own): those are reported as such,
// never waited on as the length of a frame that does not come.
inline constexpr uint32_t kFrameMagic = 0x574c4d44;  // "DMLW"
inline constexpr size_t kFrameHeaderBytes = 8;
inline constexpr uint32_t kMaxFrameBytes = 64u << 20;  // far above any answer or request
// What the first bytes of a stream say: a frame of payload_bytes (when header_ok), or not a frame.
struct FrameHeader {
  bool complete = false;   // at least kFrameHeaderBytes were given
  bool header_ok = false;  // the magic number, and a length within kMaxFrameBytes
  uint32_t payload_bytes = 0;
};
FrameHeader read_frame_header(const char* bytes, size_t n);

enum class Io { Ok, Eof, Timeout, Error };
// Frames as above. send_frame never raises SIGPIPE.
Io send_frame(int fd, const std::string& payload);
// Waits at most timeout_ms (negative: forever) for the whole frame; a stream that does not start
// with a frame header is an Error.
Io recv_frame(int fd, std::string& payload, int timeout_ms);

}  // namespace dmlcert::plugin::wire
