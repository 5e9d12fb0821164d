// A plugin part of whose code is compiled with SanitizerCoverage (coverage_probe_paths.c): the
// reference, which asks the instrumented file which path each call takes. Its certification must
// report the instrumented file's edges and functions, per operator, and name the function it
// never calls (docs/coverage.md).
#include "misbehaviour.h"

extern "C" int dmlcert_probe_path(uint32_t op, uint64_t output_bytes);

namespace dmlcert::test_plugins {

plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  // The path is chosen as a kernel library's dispatch would, before every call; the reference does
  // the work.
  hooks.before = [](const OperatorDesc& desc, FeatureLevel, const Bindings& b) {
    (void)dmlcert_probe_path(static_cast<uint32_t>(op_kind(desc)) + 1, b.output.size);
  };
  return hooks;
}

}  // namespace dmlcert::test_plugins
