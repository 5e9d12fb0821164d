// How much of a backend's own code a run reached (docs/coverage.md): the edges of its control-flow
// graph, as a plugin compiled with SanitizerCoverage numbers them, and which of them each
// operator's calls reached. The isolation child reports them (backends/plugin/edge_counters.h);
// the certificate summarizes them per operator, per source file and per function.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dmlcert/operators.h"

namespace dmlcert {

struct CodeCoverage {
  // Whether the backend reported edges; if not, why (an in-process backend, a plugin compiled
  // without SanitizerCoverage).
  bool instrumented = false;
  std::string why_not;
  // Why the figures leave calls out, beyond what docs/coverage.md says is never counted (a
  // fresh process of the plugin had another map: the file changed during the run); empty if none.
  std::string partial;
  struct Module {
    std::string path;
    uint32_t first_edge = 0, edge_count = 0;
  };
  std::vector<Module> modules;
  struct Edge {
    uint64_t address = 0;  // the edge's virtual address in its module's file
    bool function_entry = false;
  };
  std::vector<Edge> edges;
  // Per operator, per edge: reached by a call of that operator. And the edges the backend's
  // loading reached.
  std::array<std::vector<uint8_t>, kOpCount> reached;
  std::vector<uint8_t> reached_loading;

  // Marks `indices` reached by a call of `op`; returns how many of them no call of any operator
  // had reached before (out-of-range indices are ignored).
  uint32_t add(OpKind op, const std::vector<uint32_t>& indices);
  // Reached by any call or by the loading.
  bool any(size_t edge) const;
};

}  // namespace dmlcert
