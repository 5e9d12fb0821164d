// The plugin's own edge counters, in the isolation child (docs/coverage.md). A plugin compiled
// with clang's SanitizerCoverage (-fsanitize-coverage=inline-8bit-counters,pc-table) registers,
// as it loads, one array of 8-bit counters per module and the table of the edges' addresses; the
// host defines the two registration functions the compiler's module constructors call
// (__sanitizer_cov_8bit_counters_init and __sanitizer_cov_pcs_init) and exports them, so that the
// plugin's references resolve to the host's. Only modules registered while the plugin loads are
// the plugin's: the host's own, in a build instrumented throughout, register before main and are
// left out.
//
// After each call the child takes the counters that the call raised, clears them, and sends the
// edges the operator had not reached before in this process; the harness keeps the union.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmlcert/operators.h"
#include "plugin/wire.h"

namespace dmlcert::plugin::edge_counters {

// Modules that register from now until loaded() are the plugin's.
void loading();
void loaded();

// The map for the greeting: whether the plugin has counters; if so each module's path and, per
// edge, its address in the module's file (a virtual address) and whether it starts a function;
// then the edges its loading reached. Otherwise why not (`plugin` false: a built-in backend, whose
// code is the host's own).
void write_map(wire::Writer& w, bool plugin);

// The edges `op`'s call reached that no earlier call of `op` in this process had, as indices into
// the map; the counters are cleared.
std::vector<uint32_t> take(OpKind op);

}  // namespace dmlcert::plugin::edge_counters
