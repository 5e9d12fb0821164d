// The reference with a bug behind a rarely reached branch (rare_branch_kernels.c, compiled with
// SanitizerCoverage): GATHER_ELEMENTS outputs of rank 3 or more with at least 1024 one-byte
// elements and 32-bit indices come back with every byte inverted. Coverage-guided fuzzing must find it
// in far fewer cases than unguided fuzzing (docs/coverage.md, "Coverage-guided fuzzing").
#include "misbehaviour.h"

extern "C" int dmlcert_rare_kernel(uint32_t rank, uint64_t output_elements, uint32_t element_bytes,
                                   uint32_t index_bytes);

namespace dmlcert::test_plugins {
namespace {

bool buggy_kernel(const OperatorDesc& desc) {
  const auto* g = std::get_if<GatherElementsDesc>(&desc);
  if (!g) return false;
  const uint64_t elements = element_count(g->output.sizes).value_or(0);
  return dmlcert_rare_kernel(g->output.rank(), elements, static_cast<uint32_t>(element_size(g->output.type)),
                             static_cast<uint32_t>(element_size(g->indices.type))) == 6;
}

}  // namespace

plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& desc, FeatureLevel level, const Bindings& b) {
    if (!accepted(desc, level) || !buggy_kernel(desc)) return;
    // Every byte inverted: no element keeps its value, wherever the layout puts them.
    for (size_t i = 0; i < b.output.size; ++i) b.output.data[i] = ~b.output.data[i];
  };
  return hooks;
}

}  // namespace dmlcert::test_plugins
