// The isolation child's record of finished calls (backends/plugin/retired_arenas.h), on made-up
// addresses: sealing and releasing are the caller's, so nothing here maps memory.
#include "plugin/retired_arenas.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace dmlcert::plugin {
namespace {

constexpr uintptr_t kPage = 4096;

// An arena of three pages at `begin` whose output binding is 16 bytes at the end of its middle
// page, as GuardedView lays a binding out before its guard page.
struct FakeArena {
  uintptr_t begin;
  uintptr_t bytes = 3 * kPage;
  uintptr_t output() const { return begin + 2 * kPage - 16; }
  Bindings bindings() const {
    Bindings b;
    b.output = {reinterpret_cast<std::byte*>(output()), 16};
    return b;
  }
};

auto no_seal = [](uintptr_t, uintptr_t) {};

TEST(RetiredArenas, AWriteFaultingTheInstantTheArenaIsSealedFindsItsCall) {
  // A thread writing without pause faults as soon as seal() has made the pages inaccessible, while
  // retire() has not returned yet: the handler's lookup must already see the call.
  auto arenas = std::make_unique<RetiredArenas>();
  const FakeArena a{1 << 20};
  std::optional<RetiredArenas::Arena> seen_while_sealing;
  arenas->retire(
      a.begin, a.bytes, 7, a.bindings(),
      [&](uintptr_t begin, uintptr_t) { seen_while_sealing = arenas->find(begin + kPage); },
      [](uintptr_t, uintptr_t) {});
  ASSERT_TRUE(seen_while_sealing.has_value());
  EXPECT_EQ(seen_while_sealing->call, 7u);
}

TEST(RetiredArenas, AnAddressNamesItsCallAndBinding) {
  auto arenas = std::make_unique<RetiredArenas>();
  const FakeArena first{1 << 20}, second{2 << 20};
  arenas->retire(first.begin, first.bytes, 1, first.bindings(), no_seal, [](uintptr_t, uintptr_t) {});
  arenas->retire(second.begin, second.bytes, 2, second.bindings(), no_seal, [](uintptr_t, uintptr_t) {});
  struct Row {
    const char* name;
    uintptr_t address;
    uint64_t call;  // 0: not found
    uint32_t role;  // kRoleCount: no binding's bytes (canary or guard page)
  };
  const Row rows[] = {
      {"first byte of the first call's output", first.output(), 1, static_cast<uint32_t>(Role::OUTPUT)},
      {"last byte of the second call's output", second.output() + 15, 2, static_cast<uint32_t>(Role::OUTPUT)},
      {"the canary before an output", second.output() - 1, 2, kRoleCount},
      {"the guard page after an output", second.output() + 16, 2, kRoleCount},
      {"the arena's last byte", first.begin + first.bytes - 1, 1, kRoleCount},
      {"just past an arena", first.begin + first.bytes, 0, kRoleCount},
      {"just before an arena", second.begin - 1, 0, kRoleCount},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const std::optional<RetiredArenas::Arena> found = arenas->find(row.address);
    if (row.call == 0) {
      EXPECT_FALSE(found.has_value());
      continue;
    }
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->call, row.call);
    EXPECT_EQ(found->role_of(row.address), row.role);
  }
}

TEST(RetiredArenas, TheOldestArenaIsForgottenBeforeItIsReleased) {
  auto arenas = std::make_unique<RetiredArenas>();
  auto at = [](size_t i) { return FakeArena{(i + 1) * 4 * kPage}; };
  for (size_t i = 0; i < RetiredArenas::kSlots; ++i)
    arenas->retire(at(i).begin, at(i).bytes, i + 1, at(i).bindings(), no_seal,
                   [](uintptr_t, uintptr_t) { ADD_FAILURE() << "released while a slot was free"; });
  std::vector<std::pair<uintptr_t, uintptr_t>> released;
  bool found_while_releasing = true;
  const FakeArena next = at(RetiredArenas::kSlots);
  arenas->retire(next.begin, next.bytes, RetiredArenas::kSlots + 1, next.bindings(), no_seal,
                 [&](uintptr_t begin, uintptr_t bytes) {
                   released.emplace_back(begin, bytes);
                   found_while_releasing = arenas->find(begin).has_value();
                 });
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0], std::make_pair(at(0).begin, at(0).bytes));
  EXPECT_FALSE(found_while_releasing) << "an unmapped range must not name a call";
  EXPECT_FALSE(arenas->find(at(0).begin).has_value());
  ASSERT_TRUE(arenas->find(at(1).begin).has_value());
  EXPECT_EQ(arenas->find(at(1).begin)->call, 2u);
  ASSERT_TRUE(arenas->find(next.begin).has_value());
  EXPECT_EQ(arenas->find(next.begin)->call, RetiredArenas::kSlots + 1);
}

TEST(RetiredArenas, AnArenaInTheRangeOfAReleasedOneNamesTheNewCall) {
  // Once the oldest arena is unmapped, the system may place a later call's arena at the same
  // addresses, in the very slot the old one had.
  auto arenas = std::make_unique<RetiredArenas>();
  auto at = [](size_t i) { return FakeArena{(i + 1) * 4 * kPage}; };
  for (size_t i = 0; i < RetiredArenas::kSlots; ++i)
    arenas->retire(at(i).begin, at(i).bytes, i + 1, at(i).bindings(), no_seal, [](uintptr_t, uintptr_t) {});
  std::optional<RetiredArenas::Arena> seen_while_rewriting;
  arenas->retire(at(0).begin, at(0).bytes, 99, at(0).bindings(), no_seal,
                 [&](uintptr_t begin, uintptr_t) { seen_while_rewriting = arenas->find(begin); });
  EXPECT_FALSE(seen_while_rewriting.has_value()) << "a slot being rewritten must not be read";
  ASSERT_TRUE(arenas->find(at(0).output()).has_value());
  EXPECT_EQ(arenas->find(at(0).output())->call, 99u);
}

}  // namespace
}  // namespace dmlcert::plugin
