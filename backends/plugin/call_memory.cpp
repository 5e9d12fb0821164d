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
  uint64_t next = 2 * page;  // page 0 holds the FaultRecord, page 1 guards the first region
  for (Role role : roles) {
    Region& r = l.regions[static_cast<size_t>(role)];
    r.present = true;
    r.size = sizes[static_cast<size_t>(role)];
    r.offset = next;
    r.bytes = (r.size + kMinCanaryBytes + page - 1) / page * page;
    next += r.bytes + page;  // and the guard page after it
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
    std::memset(base_ + region.offset - page_, kCanary, page_ + region.bytes - region.size);
    std::memset(base_ + region.offset + region.bytes, kCanary, page_);
    const ConstBuffer src = source.of(static_cast<Role>(i));
    if (region.size) std::memcpy(base_ + region.data_offset(), src.data, region.size);
  }
}

namespace {

std::string bytes_word(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

}  // namespace

std::optional<std::pair<Fault, std::string>> SharedCallMemory::check(const CallLayout& layout,
                                                                     const Bindings& source) const {
  // Past a binding first: the page between two bindings is the first one's trailing guard page
  // and the second one's leading one, and an overrun is the usual way to reach it.
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& region = layout.regions[i];
    if (!region.present) continue;
    const std::byte* guard = base_ + region.offset + region.bytes;
    if (!all_bytes_are(guard, page_, std::byte{kCanary})) {
      uint64_t last = page_;
      while (guard[last - 1] == std::byte{kCanary}) --last;
      return std::pair{Fault::OutOfBounds, "wrote up to " + bytes_word(last) + " past the end of the " +
                                               std::string(name(static_cast<Role>(i))) +
                                               " binding (its guard page changed)"};
    }
  }
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& region = layout.regions[i];
    if (!region.present) continue;
    const Role role = static_cast<Role>(i);
    // The leading guard page and the canary bytes, as one run in front of the binding.
    const std::byte* p = base_ + region.offset - page_;
    const uint64_t gap = page_ + region.bytes - region.size;
    if (!all_bytes_are(p, gap, std::byte{kCanary})) {
      uint64_t k = 0;
      while (p[k] == std::byte{kCanary}) ++k;
      const uint64_t wrote = gap - k;
      return std::pair{Fault::OutOfBounds, "wrote " + bytes_word(wrote) + " before the " +
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

std::optional<int> SharedCallMemory::child_exit() const {
  ChildExit e;
  std::memcpy(&e, base_ + ChildExit::kOffset, sizeof e);
  if (e.magic != ChildExit::kMagic) return std::nullopt;
  return e.wait_status;
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
    // Whole pages after the fault record's and a guard page, with a guard page after them inside
    // the memory; the binding and at least the canary bytes inside the region.
    if (r.offset < 2 * page || r.offset % page != 0 || r.bytes == 0 || r.bytes % page != 0 ||
        layout.total_bytes < page || r.bytes > layout.total_bytes - page ||
        r.offset > layout.total_bytes - page - r.bytes)
      return no("the " + role + " region is not whole pages between guard pages inside the shared memory");
    if (r.bytes < kMinCanaryBytes || r.size > r.bytes - kMinCanaryBytes)
      return no("the " + role + " binding does not fit its region with its canary bytes");
    spans.emplace_back(r.offset, r.offset + r.bytes);
  }
  std::sort(spans.begin(), spans.end());
  // A guard page between two regions: neither may reach into the other's.
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second + page) return no("two regions overlap or share no guard page");
  return true;
}

std::unique_ptr<GuardedView> GuardedView::map(int fd, const CallLayout& layout, uint64_t page,
                                              std::string* why, int read_only_fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = std::string("cannot map buffers: ") + std::strerror(errno);
    return nullptr;
  }
  if (!layout_fits(layout, page, static_cast<uint64_t>(st.st_size), why)) return nullptr;
  auto failed = [why] {
    *why = std::string("cannot map buffers: ") + std::strerror(errno);
    return nullptr;
  };
  // The arena: from the guard page before the first region to the one after the last, all of it
  // the shared memory, inaccessible until each region is opened below.
  uint64_t first = UINT64_MAX, end = 0;
  for (const Region& r : layout.regions)
    if (r.present) first = std::min(first, r.offset - page), end = std::max(end, r.offset + r.bytes + page);
  if (first >= end) return failed();
  const int guard_fd = read_only_fd >= 0 ? read_only_fd : fd;
  void* arena = ::mmap(nullptr, end - first, PROT_NONE, MAP_SHARED, guard_fd, static_cast<off_t>(first));
  if (arena == MAP_FAILED) return failed();
  std::unique_ptr<GuardedView> v(new GuardedView);
  v->page_ = page;
  v->arena_ = reinterpret_cast<uintptr_t>(arena);
  v->arena_bytes_ = end - first;
  for (size_t i = 0; i < kRoleCount; ++i) {
    const Region& r = layout.regions[i];
    if (!r.present) continue;
    const Role role = static_cast<Role>(i);
    const uintptr_t at = v->arena_ + (r.offset - first);
    if (is_input_role(role)) {
      if (::mprotect(reinterpret_cast<void*>(at), r.bytes, PROT_READ) != 0) return failed();
    } else if (::mmap(reinterpret_cast<void*>(at), r.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                      fd, static_cast<off_t>(r.offset)) == MAP_FAILED) {
      return failed();
    }
    v->region_begin_[i] = at;
    v->region_end_[i] = at + r.bytes;
    v->data_begin_[i] = v->region_end_[i] - r.size;
    auto* data = reinterpret_cast<std::byte*>(v->data_begin_[i]);
    if (role == Role::OUTPUT)
      v->bindings_.output = {data, r.size};
    else
      v->bindings_.set_input(role, {data, r.size});
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
  auto take = [&](uint32_t r) {
    hit.role = r;
    hit.offset = static_cast<int64_t>(address - data_begin_[r]);
  };
  for (uint32_t r = 0; r < kRoleCount; ++r) {
    if (region_end_[r] == 0) continue;
    if (address >= data_begin_[r] && address < region_end_[r]) {
      take(r);
      hit.in_input_data = is_input_role(static_cast<Role>(r));
      return hit;
    }
    // Its canary, or the guard page right after it.
    if (address >= region_begin_[r] && address < region_end_[r] + page_) take(r);
  }
  if (hit.role != kRoleCount) return hit;
  for (uint32_t r = 0; r < kRoleCount; ++r)  // the guard page before a binding
    if (region_end_[r] != 0 && address >= region_begin_[r] - page_ && address < region_begin_[r]) take(r);
  return hit;
}

}  // namespace dmlcert::plugin
