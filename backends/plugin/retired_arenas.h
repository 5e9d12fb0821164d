// The isolation child's record of finished calls' arenas (host_main.cpp). After a call its arena
// stays reserved but inaccessible, so that a thread the plugin left running faults at its next
// write, and the fault handler looks the address up here to name the call and the binding.
//
// find() runs in a signal handler, on whichever thread faulted, while the main thread may be
// retiring another arena: storage is fixed (no allocation), and each slot's `end` is written last
// (release) and read first (acquire), so a lookup sees a slot whole or not at all.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "dmlcert/backend.h"

namespace dmlcert::plugin {

class RetiredArenas {
 public:
  // Arenas kept before the oldest is released; a late write into a released one is a crash.
  static constexpr size_t kSlots = 4096;

  struct Arena {
    uintptr_t begin = 0, end = 0;  // end 0: the slot is free
    uint64_t call = 0;
    std::array<uintptr_t, kRoleCount> data{};  // each binding's bytes, to name the one written
    std::array<uint64_t, kRoleCount> size{};
    // The binding whose bytes hold `address` (kRoleCount for none: a canary or a guard page).
    uint32_t role_of(uintptr_t address) const {
      for (uint32_t r = 0; r < kRoleCount; ++r)
        if (address >= data[r] && address < data[r] + size[r]) return r;
      return kRoleCount;
    }
  };

  // Records [begin, begin + bytes) as call's, then calls seal(begin, bytes), which makes the
  // pages inaccessible. Recorded first: a thread that writes without pause faults at the instant
  // the pages are sealed, before this returns, and must find its call here already (sealed first,
  // such a write was reported as a crash outside every binding). When every slot is taken, the
  // oldest arena is forgotten and then passed to release(begin, bytes).
  template <class Seal, class Release>
  void retire(uintptr_t begin, uintptr_t bytes, uint64_t call, const Bindings& bindings, Seal&& seal,
              Release&& release) {
    Arena& slot = slots_[next_++ % kSlots];
    if (const uintptr_t old_end = __atomic_load_n(&slot.end, __ATOMIC_RELAXED)) {
      __atomic_store_n(&slot.end, uintptr_t{0}, __ATOMIC_RELEASE);
      release(slot.begin, old_end - slot.begin);
    }
    slot.begin = begin;
    slot.call = call;
    for (uint32_t r = 0; r < kRoleCount; ++r) {
      const ConstBuffer b = bindings.of(static_cast<Role>(r));
      slot.data[r] = reinterpret_cast<uintptr_t>(b.data);
      slot.size[r] = b.size;
    }
    __atomic_store_n(&slot.end, begin + bytes, __ATOMIC_RELEASE);
    seal(begin, bytes);
  }

  // The retired arena holding `address`, or nullptr. Safe in a signal handler.
  const Arena* find(uintptr_t address) const {
    for (const Arena& a : slots_) {
      const uintptr_t end = __atomic_load_n(&a.end, __ATOMIC_ACQUIRE);
      if (end != 0 && address >= a.begin && address < end) return &a;
    }
    return nullptr;
  }

 private:
  std::array<Arena, kSlots> slots_{};
  size_t next_ = 0;
};

}  // namespace dmlcert::plugin
