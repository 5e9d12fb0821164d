// The memory of one call in the isolation child: how the bindings are laid out in shared memory,
// the harness's side that places data and checks it after the call, and the child's side that
// maps it behind guard pages. The same two halves, in one process, give tests and in-process
// runs guarded CaseBuffers (guarded_buffers.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"

namespace dmlcert::plugin {

// Canary bytes in front of every binding.
inline constexpr uint8_t kCanary = 0xCD;
inline constexpr uint64_t kMinCanaryBytes = 64;

// One binding's place in the shared memory: a run of whole pages starting at `offset`, with the
// binding's `size` bytes at its very end and canary bytes before them. A guard page of canary bytes
// lies right before and right after it, in the shared memory too (two neighbours share one), and
// is mapped inaccessible in the child: a write past the binding faults there, and if the plugin
// made the page writable first (an mprotect, or a fault handler of its own that does one and
// retries), the write lands in the shared memory and the changed canary shows it.
struct Region {
  bool present = false;
  uint64_t offset = 0;  // in the shared memory, page aligned
  uint64_t bytes = 0;   // whole pages
  uint64_t size = 0;    // the binding's bytes, at [offset + bytes - size, offset + bytes)
  uint64_t data_offset() const { return offset + bytes - size; }
};
struct CallLayout {
  std::array<Region, kRoleCount> regions;  // by Role
  uint64_t total_bytes = 0;                // shared memory needed, fault page included
};
// Lays out the bindings after the first page (the fault record's), each between guard pages.
// `sizes` are the binding sizes by role; roles the operator lacks are absent.
CallLayout lay_out(std::span<const Role> roles, const std::array<uint64_t, kRoleCount>& sizes, uint64_t page);

// Whether a layout fits shared memory of mem_bytes: every present region whole pages after the
// fault record's and a guard page, with a guard page after it inside total_bytes <= mem_bytes,
// holding its binding after at least kMinCanaryBytes of canary, no two closer than a guard page. lay_out()
// gives only such layouts; the child checks what it receives anyway (GuardedView::map), so that no request
// can make it touch memory outside its mapping.
bool layout_fits(const CallLayout& layout, uint64_t page, uint64_t mem_bytes, std::string* why);

// The first page of the shared memory: what the child's signal handler saw before it died.
struct FaultRecord {
  static constexpr uint32_t kMagic = 0x444d4c46;  // "DMLF"
  uint32_t magic;
  uint32_t fault;  // a Fault value
  uint32_t signal;
  uint32_t role;  // the binding the address hit (a Role value), or kRoleCount
  uint64_t address;
  int64_t offset;  // of the address from the start of that binding
  int32_t code;    // si_code: > 0 when the kernel raised the signal for a memory access
  uint64_t call;   // the call it happened in, or after (LateWrite)
};

// How the isolation child ended, when it ran under a first process of its own (a PID namespace's,
// containment.h): that process waits for the child and writes its wait status here before it
// exits, since the harness waits for that process, not for the child.
struct ChildExit {
  static constexpr uint64_t kOffset = 192;        // from the start of the first page
  static constexpr uint32_t kMagic = 0x444d4c58;  // "DMLX"
  uint32_t magic;
  int32_t wait_status;
};
static_assert(ChildExit::kOffset >= sizeof(FaultRecord));

// Late writes the child lived through, after the fault record on the first page. A thread the
// plugin left running that writes into a retired call's bindings is noted here, the retired
// arena becomes private scratch memory, and the thread goes on: the process lives, so another
// call's thread that writes later still shows (threads run in no set order). Past kEntries the
// child dies of the next one, as with any fault.
struct LateWriteLog {
  static constexpr uint64_t kOffset = 256;  // from the start of the first page
  static constexpr uint32_t kEntries = 96;
  struct Entry {
    uint64_t call;
    int64_t offset;  // of the address from the start of the binding
    uint32_t role;   // a Role value, or kRoleCount
    uint32_t ready;  // 1 once the fields above are written
  };
  uint32_t claimed;  // entries taken, possibly past kEntries
  uint32_t unused;
  Entry entries[kEntries];
};
static_assert(LateWriteLog::kOffset >= ChildExit::kOffset + sizeof(ChildExit));
static_assert(LateWriteLog::kOffset + sizeof(LateWriteLog) <= 4096, "the log shares the first page");

// The harness's half: a memfd it grows as calls need, into which it places each call's bindings
// (canaries, then data) and from which it reads the output back.
class SharedCallMemory {
 public:
  SharedCallMemory() = default;
  ~SharedCallMemory();
  SharedCallMemory(const SharedCallMemory&) = delete;
  SharedCallMemory& operator=(const SharedCallMemory&) = delete;

  bool init(std::string* why);
  int fd() const { return fd_; }
  uint64_t page() const { return page_; }
  // Grows the memfd and the mapping to hold a layout.
  bool reserve(uint64_t bytes);
  // Writes every region's canaries and the source bindings' bytes. The fault record stays: a child
  // writes it once, as it dies, and it may be a late write of an earlier call that the harness has
  // not read yet (clear_fault_record() when a new child starts).
  void place(const CallLayout& layout, const Bindings& source);
  // After the call: a canary or guard page that changed, or an input binding that differs from the
  // source.
  std::optional<std::pair<Fault, std::string>> check(const CallLayout& layout, const Bindings& source) const;
  // The output region's bytes, into dst (dst.size bytes).
  void copy_output(const CallLayout& layout, MutableBuffer dst) const;
  const std::byte* region_data(const CallLayout& layout, Role r) const;
  FaultRecord fault_record() const;
  // The child's wait status as its first process recorded it (ChildExit), if it did.
  std::optional<int> child_exit() const;
  // The late writes logged from entry `from` on that are complete, and how many the child claimed.
  std::vector<LateWriteLog::Entry> late_writes(uint32_t from, uint32_t* claimed) const;
  // A new child starts with no record and an empty log: a stale one would blame its death (or a
  // late write) on an earlier child.
  void clear_fault_record();

 private:
  int fd_ = -1;
  std::byte* base_ = nullptr;
  uint64_t bytes_ = 0, page_ = 4096;
};

// The child's half: the regions of one call and their guard pages mapped from the shared memory;
// inputs read-only, the output read-write, the guard pages inaccessible. Inputs and guard pages
// are mapped from `read_only_fd` when one is given (a descriptor of the same memory opened for
// reading only), so that the plugin cannot make them writable (mprotect fails); the canaries
// catch what gets through anyway.
class GuardedView {
 public:
  static std::unique_ptr<GuardedView> map(int fd, const CallLayout& layout, uint64_t page, std::string* why,
                                          int read_only_fd = -1);
  ~GuardedView();
  GuardedView(const GuardedView&) = delete;
  GuardedView& operator=(const GuardedView&) = delete;

  const Bindings& bindings() const { return bindings_; }
  // Where an address lies: the binding whose data, canary or guard pages it hits (kRoleCount for
  // none; a page between two bindings counts as the first one's, overruns being the usual kind),
  // and whether it is inside the arena at all.
  struct Hit {
    bool in_arena = false;
    uint32_t role = kRoleCount;
    bool in_input_data = false;  // a read-only input's own bytes: only a write faults there
    int64_t offset = 0;          // from the start of that binding's data
  };
  Hit locate(uintptr_t address) const;
  // Gives up ownership of the arena (address, bytes): the caller keeps or unmaps it.
  std::pair<uintptr_t, uintptr_t> release();

 private:
  GuardedView() = default;
  uintptr_t arena_ = 0, arena_bytes_ = 0, page_ = 4096;
  std::array<uintptr_t, kRoleCount> region_begin_{}, region_end_{}, data_begin_{};
  Bindings bindings_;
};

}  // namespace dmlcert::plugin
