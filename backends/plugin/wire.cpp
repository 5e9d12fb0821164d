#include "plugin/wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace dmlcert::plugin::wire {
namespace {

void write_tensor(Writer& w, const TensorDesc& t) {
  w.u8(static_cast<uint8_t>(t.type));
  w.vec(t.sizes);
  w.u8(t.strides.has_value());
  if (t.strides) w.vec(*t.strides);
  w.u64(t.total_bytes);
}

TensorDesc read_tensor(Reader& r) {
  TensorDesc t;
  uint8_t type = r.u8();
  if (type < kDataTypeCount) t.type = static_cast<DataType>(type);
  t.sizes = r.vec<uint32_t>();
  if (r.u8()) t.strides = r.vec<uint32_t>();
  t.total_bytes = r.u64();
  return t;
}

}  // namespace

void Writer::str(const std::string& s) {
  u32(static_cast<uint32_t>(s.size()));
  raw(s.data(), s.size());
}

std::string Reader::str() {
  uint32_t n = u32();
  if (!take(n)) return {};
  return buf_.substr(pos_ - n, n);
}

// Parameters by their C++ type (the declarations in dmlcert/ops/ say which).
template <class T>
void write_param(Writer& w, const T& v) {
  if constexpr (std::is_same_v<T, ReduceFunction>)
    w.u32(static_cast<uint32_t>(v));
  else if constexpr (std::is_integral_v<T>)
    w.u32(v);
  else
    w.vec(v);
}
template <class T>
void read_param(Reader& r, T& v) {
  if constexpr (std::is_same_v<T, ReduceFunction>)
    v = static_cast<ReduceFunction>(r.u32());
  else if constexpr (std::is_integral_v<T>)
    v = r.u32();
  else
    v = r.template vec<typename T::value_type>();
}

void Writer::desc(const OperatorDesc& d) {
  u8(static_cast<uint8_t>(op_kind(d)));
  visit(d, [&](const auto& desc) {
    using D = std::decay_t<decltype(desc)>;
    for_each_tensor_field<D>([&](const auto& field) { write_tensor(*this, desc.*field.member); });
    for_each_param_field<D>([&](const auto& field) { write_param(*this, desc.*field.member); });
  });
}

std::optional<OperatorDesc> Reader::desc() {
  const uint8_t kind = u8();
  if (!ok_ || kind >= kOpCount) return std::nullopt;
  OperatorDesc d = make_desc(static_cast<OpKind>(kind));
  visit(d, [&](auto& desc) {
    using D = std::decay_t<decltype(desc)>;
    for_each_tensor_field<D>([&](const auto& field) { desc.*field.member = read_tensor(*this); });
    for_each_param_field<D>([&](const auto& field) { read_param(*this, desc.*field.member); });
  });
  if (!ok_) return std::nullopt;
  return d;
}

void write(Writer& w, const CallLayout& l) {
  for (const Region& r : l.regions) {
    w.u8(r.present), w.u64(r.offset), w.u64(r.bytes), w.u64(r.size);
  }
  w.u64(l.total_bytes);
}

CallLayout read_layout(Reader& rd) {
  CallLayout l;
  for (Region& r : l.regions) {
    r.present = rd.u8(), r.offset = rd.u64(), r.bytes = rd.u64(), r.size = rd.u64();
  }
  l.total_bytes = rd.u64();
  return l;
}

FrameHeader read_frame_header(const char* bytes, size_t n) {
  FrameHeader h;
  if (n < kFrameHeaderBytes) {
    // A prefix of the magic number may still become a frame; anything else never will.
    uint32_t magic = kFrameMagic;
    h.header_ok = std::memcmp(bytes, &magic, std::min<size_t>(n, 4)) == 0;
    return h;
  }
  uint32_t magic = 0;
  std::memcpy(&magic, bytes, 4);
  std::memcpy(&h.payload_bytes, bytes + 4, 4);
  h.complete = true;
  h.header_ok = magic == kFrameMagic && h.payload_bytes <= kMaxFrameBytes;
  return h;
}

Io send_frame(int fd, const std::string& payload) {
  std::string frame(kFrameHeaderBytes, '\0');
  const uint32_t magic = kFrameMagic;
  const auto n = static_cast<uint32_t>(payload.size());
  std::memcpy(frame.data(), &magic, 4);
  std::memcpy(frame.data() + 4, &n, 4);
  frame += payload;
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t k = ::send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno == EPIPE || errno == ECONNRESET ? Io::Eof : Io::Error;
    done += static_cast<size_t>(k);
  }
  return Io::Ok;
}

namespace {
Io read_exact(int fd, char* p, size_t n, std::chrono::steady_clock::time_point deadline, bool forever) {
  size_t done = 0;
  while (done < n) {
    int wait_ms = -1;
    if (!forever) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return Io::Timeout;
      wait_ms = static_cast<int>(left.count());
    }
    pollfd pfd{fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Io::Error;
    if (ready == 0) return Io::Timeout;
    ssize_t k = ::read(fd, p + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno == ECONNRESET ? Io::Eof : Io::Error;
    if (k == 0) return Io::Eof;
    done += static_cast<size_t>(k);
  }
  return Io::Ok;
}
}  // namespace

Io recv_frame(int fd, std::string& payload, int timeout_ms) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  bool forever = timeout_ms < 0;
  char header[kFrameHeaderBytes];
  Io io = read_exact(fd, header, sizeof header, deadline, forever);
  if (io != Io::Ok) return io;
  const FrameHeader h = read_frame_header(header, sizeof header);
  if (!h.header_ok) return Io::Error;
  payload.assign(h.payload_bytes, '\0');
  return read_exact(fd, payload.data(), h.payload_bytes, deadline, forever);
}

}  // namespace dmlcert::plugin::wire
