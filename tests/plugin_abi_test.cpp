// ABI versions (dmlcert_backend_abi.h, "Versioning"): a plugin built from an older header keeps
// loading in a newer harness; a plugin that answers a version the harness did not ask for does not.
// The plugins are loaded here, in this process, as the isolation child loads them.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "dmlcert/operators.h"
#include "plugin/plugin_backend.h"

namespace dmlcert {
namespace {

struct AbiRow {
  std::string name;
  std::string plugin;
  uint32_t harness_abi;  // the version the loading harness was built with
  bool loads;
  uint32_t plugin_abi;  // the version of the table it answers with, when it loads
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
    // Both plugins are the reference, which implements every operator it is asked about; an
    // operator of a later version than the plugin's is outside its scope (a version-1 plugin in a
    // harness with TILE, which came with version 3: tests/fixture_operator).
    for (OpKind op : all_ops()) {
      const auto function = has_function(op) ? std::optional(ReduceFunction::SUM) : std::nullopt;
      EXPECT_EQ(backend->implements(op, function, DataType::FLOAT32), info(op).abi_version <= row.plugin_abi)
          << name(op) << " came with version " << info(op).abi_version;
      // Index types came with version 2: a version-1 table has no such field, and every type of an
      // operator it has is claimed (the old plugin's table holds garbage where the field would
      // be); of an operator its version lacks, none is.
      EXPECT_EQ(backend->implements_index_type(op, DataType::INT64), info(op).abi_version <= row.plugin_abi)
          << name(op);
    }
  } else {
    EXPECT_NE(error.find(row.error_has), std::string::npos) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Versions, PluginAbi,
    ::testing::Values(AbiRow{"version_1_plugin_in_this_harness", DMLCERT_OLD_ABI_PLUGIN, DMLCERT_ABI_VERSION,
                             true, 1},
                      // Asked for 3, it says nothing; asked for 2, nothing; asked for 1, its table.
                      AbiRow{"version_1_plugin_in_a_later_harness", DMLCERT_OLD_ABI_PLUGIN,
                             DMLCERT_ABI_VERSION + 2, true, 1},
                      // Asked for a later version than its own, it answers with its own.
                      AbiRow{"plugin_that_serves_every_version_in_a_later_harness", DMLCERT_REFERENCE_PLUGIN,
                             DMLCERT_ABI_VERSION + 2, true, DMLCERT_ABI_VERSION},
                      // Version 2 in name, a version-1 table in size: nothing past it is read.
                      AbiRow{"version_2_plugin_with_a_version_1_table", DMLCERT_SHORT_TABLE_PLUGIN,
                             DMLCERT_ABI_VERSION, true, DMLCERT_ABI_VERSION},
                      AbiRow{"plugin_that_answers_a_newer_version_than_asked", DMLCERT_NEWER_ABI_PLUGIN,
                             DMLCERT_ABI_VERSION, false, 0, "answered with version"}),
    [](const ::testing::TestParamInfo<AbiRow>& row) { return row.param.name; });

// A version-2 plugin that takes INT32 indices only says so through implements_index_type.
TEST(PluginAbi, IndexTypeClaimsCrossTheBoundary) {
  std::string error;
  const auto backend = plugin::load_plugin(DMLCERT_GATHER_INT32_INDICES_PLUGIN, &error, DMLCERT_ABI_VERSION);
  ASSERT_NE(backend, nullptr) << error;
  EXPECT_TRUE(backend->implements_index_type(OpKind::GATHER_ELEMENTS, DataType::INT32));
  for (DataType other : {DataType::INT64, DataType::UINT32, DataType::UINT64})
    EXPECT_FALSE(backend->implements_index_type(OpKind::GATHER_ELEMENTS, other)) << name(other);
}

}  // namespace
}  // namespace dmlcert
