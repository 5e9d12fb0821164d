#include "plugin/wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

void Writer::desc(const OperatorDesc& d) {
  u8(static_cast<uint8_t>(op_kind(d)));
  for (Role role : roles(op_kind(d))) write_tensor(*this, *tensor(d, role));
  if (auto* s = std::get_if<SliceDesc>(&d)) {
    vec(s->offsets), vec(s->sizes), vec(s->strides);
  } else if (auto* s1 = std::get_if<Slice1Desc>(&d)) {
    vec(s1->input_window_offsets), vec(s1->input_window_sizes), vec(s1->input_window_strides);
  } else if (auto* sn = std::get_if<ScatterNdDesc>(&d)) {
    u32(sn->input_dimension_count), u32(sn->indices_dimension_count);
  } else if (auto* r = std::get_if<ReduceDesc>(&d)) {
    u32(static_cast<uint32_t>(r->function)), vec(r->axes);
  } else if (auto* g = std::get_if<GatherElementsDesc>(&d)) {
    u32(g->axis);
  }
}

std::optional<OperatorDesc> Reader::desc() {
  uint8_t kind = u8();
  if (!ok_ || kind >= kOpCount) return std::nullopt;
  OperatorDesc d;
  switch (static_cast<OpKind>(kind)) {
    case OpKind::SLICE: d = SliceDesc{}; break;
    case OpKind::SLICE1: d = Slice1Desc{}; break;
    case OpKind::SCATTER_ND: d = ScatterNdDesc{}; break;
    case OpKind::REDUCE: d = ReduceDesc{}; break;
    case OpKind::GATHER_ELEMENTS: d = GatherElementsDesc{}; break;
  }
  for (Role role : roles(op_kind(d))) *tensor(d, role) = read_tensor(*this);
  if (auto* s = std::get_if<SliceDesc>(&d)) {
    s->offsets = vec<uint32_t>(), s->sizes = vec<uint32_t>(), s->strides = vec<uint32_t>();
  } else if (auto* s1 = std::get_if<Slice1Desc>(&d)) {
    s1->input_window_offsets = vec<uint32_t>(), s1->input_window_sizes = vec<uint32_t>();
    s1->input_window_strides = vec<int32_t>();
  } else if (auto* sn = std::get_if<ScatterNdDesc>(&d)) {
    sn->input_dimension_count = u32(), sn->indices_dimension_count = u32();
  } else if (auto* r = std::get_if<ReduceDesc>(&d)) {
    r->function = static_cast<ReduceFunction>(u32()), r->axes = vec<uint32_t>();
  } else if (auto* g = std::get_if<GatherElementsDesc>(&d)) {
    g->axis = u32();
  }
  if (!ok_) return std::nullopt;
  return d;
}

CallLayout lay_out(const std::vector<Role>& roles, const uint64_t (&sizes)[kRoleCount], uint64_t page) {
  CallLayout l;
  uint64_t next = page;  // page 0 holds the FaultRecord
  for (Role role : roles) {
    Region& r = l.regions[static_cast<size_t>(role)];
    r.present = true;
    r.size = sizes[static_cast<size_t>(role)];
    r.offset = next;
    r.bytes = (r.size + kMinCanaryBytes + page - 1) / page * page;
    next += r.bytes;
  }
  l.total_bytes = next;
  return l;
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

Io send_frame(int fd, const std::string& payload) {
  std::string frame(4, '\0');
  uint32_t n = static_cast<uint32_t>(payload.size());
  std::memcpy(frame.data(), &n, 4);
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
  uint32_t n = 0;
  Io io = read_exact(fd, reinterpret_cast<char*>(&n), 4, deadline, forever);
  if (io != Io::Ok) return io;
  payload.assign(n, '\0');
  return read_exact(fd, payload.data(), n, deadline, forever);
}

}  // namespace dmlcert::plugin::wire
