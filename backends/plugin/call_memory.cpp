#include "plugin/call_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dmlcert/case_buffers.h"

namespace dmlcert::plugin {
namespace {

// A descriptor numbered 10 or more, so that dup2() onto the child's fixed descriptors never
// finds its source already sitting there (dup2(fd, fd) would keep FD_CLOEXEC set).
int high_fd(int fd) {
  if (fd < 0 || fd >= 10) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

}  // namespace

CallLayout lay_out(std::span<const Role> roles, const std::array<uint64_t, kRoleCount>& sizes,
                   uint64_t page) {
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

SharedCallMemory::~SharedCallMemory() {
  if (base_) ::munmap(base_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

bool SharedCallMemory::init(std::string* why) {
  page_ = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  fd_ = high_fd(::memfd_create("dmlcert-buffers", MFD_CLOEXEC));
  if (fd_ < 0 || !reserve(page_)) {
    *why = std::string("cannot create shared memory: ") + std::strerror(errno);
    return false;
  }
  return true;
}

bool SharedCallMemory::reserve(uint64_t bytes) {
  if (bytes <= bytes_) return true;
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) return false;
  if (base_) ::munmap(base_, bytes_);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    base_ = nullptr, bytes_ = 0;
    return false;
  }
  base_ = static_cast<std::byte*>(p), bytes_ = bytes;
  return true;
}

void SharedCallMemory::place(const CallLayout& layout, const Bindings& source) {
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& region = layout.regions[i];
    if (!region.present) continue;
    std::memset(base_ + region.offset, kCanary, region.bytes - region.size);
    const ConstBuffer src = source.of(static_cast<Role>(i));
    if (region.size) std::memcpy(base_ + region.data_offset(), src.data, region.size);
  }
}

std::optional<std::pair<Fault, std::string>> SharedCallMemory::check(const CallLayout& layout,
                                                                     const Bindings& source) const {
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& region = layout.regions[i];
    if (!region.present) continue;
    const Role role = static_cast<Role>(i);
    const std::byte* p = base_ + region.offset;
    const uint64_t gap = region.bytes - region.size;
    if (!all_bytes_are(p, gap, std::byte{kCanary})) {
      uint64_t k = 0;
      while (p[k] == std::byte{kCanary}) ++k;
      const uint64_t wrote = gap - k;
      return std::pair{Fault::OutOfBounds, "wrote " + std::to_string(wrote) +
                                               (wrote == 1 ? " byte" : " bytes") + " before the " +
                                               std::string(name(role)) + " binding (canary changed)"};
    }
    if (is_input_role(role) && region.size &&
        std::memcmp(base_ + region.data_offset(), source.of(role).data, region.size) != 0)
      return std::pair{Fault::InputWritten, "the " + std::string(name(role)) + " binding changed"};
  }
  return std::nullopt;
}

void SharedCallMemory::copy_output(const CallLayout& layout, MutableBuffer dst) const {
  const Region& out = layout.regions[static_cast<size_t>(Role::OUTPUT)];
  if (out.size && dst.data) std::memcpy(dst.data, base_ + out.data_offset(), std::min(out.size, dst.size));
}

const std::byte* SharedCallMemory::region_data(const CallLayout& layout, Role r) const {
  return base_ + layout.regions[static_cast<size_t>(r)].data_offset();
}

FaultRecord SharedCallMemory::fault_record() const {
  FaultRecord record;
  std::memcpy(&record, base_, sizeof record);
  return record;
}

std::vector<LateWriteLog::Entry> SharedCallMemory::late_writes(uint32_t from, uint32_t* claimed) const {
  *claimed = 0;
  if (!base_) return {};
  auto* log = reinterpret_cast<LateWriteLog*>(base_ + LateWriteLog::kOffset);
  *claimed = __atomic_load_n(&log->claimed, __ATOMIC_ACQUIRE);
  std::vector<LateWriteLog::Entry> out;
  for (uint32_t i = from; i < std::min(*claimed, LateWriteLog::kEntries); ++i) {
    const LateWriteLog::Entry& e = log->entries[i];
    if (__atomic_load_n(&e.ready, __ATOMIC_ACQUIRE) != 1) break;  // still being written
    out.push_back(e);
  }
  return out;
}

void SharedCallMemory::clear_fault_record() {
  std::memset(base_, 0, LateWriteLog::kOffset + sizeof(LateWriteLog));
}

bool layout_fits(const CallLayout& layout, uint64_t page, uint64_t mem_bytes, std::string* why) {
  auto no = [why](std::string what) {
    *why = "malformed layout: " + what;
    return false;
  };
  if (page == 0 || layout.total_bytes > mem_bytes) return no("larger than the shared memory");
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [offset, offset + bytes)
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& r = layout.regions[i];
    if (!r.present) continue;
    const std::string role(name(static_cast<Role>(i)));
    // Whole pages after the fault record's, inside the memory; the binding and at least the
    // canary bytes inside the region.
    if (r.offset < page || r.offset % page != 0 || r.bytes == 0 || r.bytes % page != 0 ||
        r.bytes > layout.total_bytes || r.offset > layout.total_bytes - r.bytes)
      return no("the " + role + " region is not whole pages inside the shared memory");
    if (r.bytes < kMinCanaryBytes || r.size > r.bytes - kMinCanaryBytes)
      return no("the " + role + " binding does not fit its region with its canary bytes");
    spans.emplace_back(r.offset, r.offset + r.bytes);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return no("two regions overlap");
  return true;
}

std::unique_ptr<GuardedView> GuardedView::map(int fd, const CallLayout& layout, uint64_t page,
                                              std::string* why) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = std::string("cannot map buffers: ") + std::strerror(errno);
    return nullptr;
  }
  if (!layout_fits(layout, page, static_cast<uint64_t>(st.st_size), why)) return nullptr;
  std::unique_ptr<GuardedView> v(new GuardedView);
  v->page_ = page;
  uint64_t arena_bytes = page;
  for (const Region& r : layout.regions)
    if (r.present) arena_bytes += r.bytes + page;
  void* arena = ::mmap(nullptr, arena_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) {
    *why = std::string("cannot map buffers: ") + std::strerror(errno);
    return nullptr;
  }
  v->arena_ = reinterpret_cast<uintptr_t>(arena);
  v->arena_bytes_ = arena_bytes;
  uint64_t at = page;
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& r = layout.regions[i];
    if (!r.present) continue;
    const Role role = static_cast<Role>(i);
    const int prot = is_input_role(role) ? PROT_READ : PROT_READ | PROT_WRITE;
    void* p = ::mmap(reinterpret_cast<void*>(v->arena_ + at), r.bytes, prot, MAP_SHARED | MAP_FIXED, fd,
                     static_cast<off_t>(r.offset));
    if (p == MAP_FAILED) {
      *why = std::string("cannot map buffers: ") + std::strerror(errno);
      return nullptr;
    }
    v->region_begin_[i] = v->arena_ + at;
    v->region_end_[i] = v->arena_ + at + r.bytes;
    v->data_begin_[i] = v->region_end_[i] - r.size;
    auto* data = reinterpret_cast<std::byte*>(v->data_begin_[i]);
    if (role == Role::OUTPUT)
      v->bindings_.output = {data, r.size};
    else
      v->bindings_.set_input(role, {data, r.size});
    at += r.bytes + page;
  }
  return v;
}

GuardedView::~GuardedView() {
  if (arena_) ::munmap(reinterpret_cast<void*>(arena_), arena_bytes_);
}

std::pair<uintptr_t, uintptr_t> GuardedView::release() {
  const std::pair<uintptr_t, uintptr_t> arena{arena_, arena_bytes_};
  arena_ = arena_bytes_ = 0;
  bindings_ = {};
  return arena;
}

GuardedView::Hit GuardedView::locate(uintptr_t address) const {
  Hit hit;
  if (address < arena_ || address >= arena_ + arena_bytes_) return hit;
  hit.in_arena = true;
  for (uint32_t r = 0; r < kRoleCount; ++r) {
    if (region_end_[r] == 0) continue;
    if (address >= data_begin_[r] && address < region_end_[r]) {
      hit.role = r;
      hit.in_input_data = is_input_role(static_cast<Role>(r));
    } else if (address >= region_begin_[r] && address < region_end_[r] + page_) {
      hit.role = r;  // its canary, or the guard page right after it
    }
    if (hit.role == r) hit.offset = static_cast<int64_t>(address - data_begin_[r]);
  }
  return hit;
}

}  // namespace dmlcert::plugin
