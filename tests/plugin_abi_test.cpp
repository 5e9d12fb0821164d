// ABI versions (dmlcert_backend_abi.h, "Versioning"): a plugin built from an older header keeps
// loading in a newer harness; a plugin that answers a version the harness did not ask for does not.
// The plugins are loaded here, in this process, as the isolation child loads them.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "plugin/plugin_backend.h"

namespace dmlcert {
namespace {

struct AbiRow {
  std::string name;
  std::string plugin;
  uint32_t harness_abi;  // the version the loading harness was built with
  bool loads;
  std::string error_has = {};
};
void PrintTo(const AbiRow& r, std::ostream* os) {
  *os << r.name;
}
class PluginAbi : public ::testing::TestWithParam<AbiRow> {};

TEST_P(PluginAbi, LoadsWhatItCanServe) {
  const AbiRow& row = GetParam();
  std::string error;
  const auto backend = plugin::load_plugin(row.plugin, &error, row.harness_abi);
  ASSERT_EQ(backend != nullptr, row.loads) << error;
  if (backend) {
    EXPECT_TRUE(backend->implements(OpKind::SLICE, std::nullopt, DataType::FLOAT32));
  } else {
    EXPECT_NE(error.find(row.error_has), std::string::npos) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Versions, PluginAbi,
    ::testing::Values(
        AbiRow{"version_1_plugin_in_this_harness", DMLCERT_OLD_ABI_PLUGIN, DMLCERT_ABI_VERSION, true},
        // Asked for 3, it says nothing; asked for 2, nothing; asked for 1, its table.
        AbiRow{"version_1_plugin_in_a_later_harness", DMLCERT_OLD_ABI_PLUGIN, DMLCERT_ABI_VERSION + 2, true},
        AbiRow{"plugin_that_serves_every_version_in_a_later_harness", DMLCERT_REFERENCE_PLUGIN,
               DMLCERT_ABI_VERSION + 2, true},
        AbiRow{"plugin_that_answers_a_newer_version_than_asked", DMLCERT_NEWER_ABI_PLUGIN,
               DMLCERT_ABI_VERSION, false, "answered with version"}),
    [](const ::testing::TestParamInfo<AbiRow>& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert
