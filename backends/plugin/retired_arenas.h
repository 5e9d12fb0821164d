// The isolation child's record of finished calls' arenas (host_main.cpp). After a call its arena
// stays reserved but inaccessible, so that a thread the plugin left running faults at its next
// write, and the fault handler looks the address up here to name the call and the binding.
//
// find() runs in a signal handler, on whichever thread faulted, while the main thread may be
// retiring another arena into the same slot. Storage is fixed (no allocation), and each slot is
// guarded by a sequence number, odd while the main thread rewrites the slot: a lookup copies the
// slot between two reads of an even, unchanged number, or skips it. So the handler works on a
// whole slot or none, never one half rewritten (a new arena may even reuse the old one's range).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

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
    const size_t i = next_++ % kSlots;
    Arena& slot = slots_[i];
    uint64_t& seq = sequence_[i];
    const uintptr_t old_begin = slot.begin, old_end = slot.end;  // only this thread writes them
    store(seq, seq + 1);                                         // odd: being rewritten
    __atomic_thread_fence(__ATOMIC_RELEASE);                     // ... before any field changes
    store(slot.end, uintptr_t{0});
    if (old_end) release(old_begin, old_end - old_begin);
    store(slot.begin, begin);
    store(slot.call, call);
    for (uint32_t r = 0; r < kRoleCount; ++r) {
      const ConstBuffer b = bindings.of(static_cast<Role>(r));
      store(slot.data[r], reinterpret_cast<uintptr_t>(b.data));
      store(slot.size[r], b.size);
    }
    store(slot.end, begin + bytes);
    __atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);  // even again: whole
    seal(begin, bytes);
  }

  // A copy of the retired arena holding `address`, if any. Safe in a signal handler.
  std::optional<Arena> find(uintptr_t address) const {
    for (size_t i = 0; i < kSlots; ++i) {
      const uint64_t before = __atomic_load_n(&sequence_[i], __ATOMIC_ACQUIRE);
      if (before % 2) continue;
      const Arena& a = slots_[i];
      Arena copy;
      copy.begin = load(a.begin);
      copy.end = load(a.end);
      copy.call = load(a.call);
      for (uint32_t r = 0; r < kRoleCount; ++r)
        copy.data[r] = load(a.data[r]), copy.size[r] = load(a.size[r]);
      __atomic_thread_fence(__ATOMIC_ACQUIRE);  // the copy is taken before the second read
      if (load(sequence_[i]) != before) continue;
      if (copy.end != 0 && address >= copy.begin && address < copy.end) return copy;
    }
    return std::nullopt;
  }

 private:
  // The fields race with the handler by design: every access the handler can overlap is atomic
  // (relaxed), and the fences around the sequence number order them.
  template <class T>
  static T load(const T& field) {
    return __atomic_load_n(&field, __ATOMIC_RELAXED);
  }
  template <class T>
  static void store(T& field, T value) {
    __atomic_store_n(&field, value, __ATOMIC_RELAXED);
  }

  std::array<Arena, kSlots> slots_{};
  std::array<uint64_t, kSlots> sequence_{};  // per slot: odd while it is rewritten
  size_t next_ = 0;
};

}  // namespace dmlcert::plugin
