// A GoogleMock stand-in for Backend, for tests that choose what a backend returns.
#pragma once

#include <gmock/gmock.h>

#include "dmlcert/backend.h"

namespace dmlcert::testing {

class MockBackend : public Backend {
 public:
  MOCK_METHOD(std::string, name, (), (const, override));
  MOCK_METHOD(FeatureLevel, max_feature_level, (), (const, override));
  MOCK_METHOD(bool, implements, (OpKind op, std::optional<ReduceFunction> function, DataType type),
              (const, override));
  MOCK_METHOD(bool, reports_rules, (), (const, override));
  MOCK_METHOD(ExecResult, execute, (const OperatorDesc& desc, FeatureLevel level, const Bindings& buffers),
              (override));
  MOCK_METHOD(std::vector<LateFault>, settle, (double seconds), (override));

  // A backend that claims everything up to the highest level and reports rule IDs; tests then
  // set what execute() does.
  static std::unique_ptr<::testing::NiceMock<MockBackend>> claiming_everything() {
    auto b = std::make_unique<::testing::NiceMock<MockBackend>>();
    ON_CALL(*b, name()).WillByDefault(::testing::Return("mock"));
    ON_CALL(*b, max_feature_level()).WillByDefault(::testing::Return(FeatureLevel::L6_4));
    ON_CALL(*b, implements).WillByDefault(::testing::Return(true));
    ON_CALL(*b, reports_rules()).WillByDefault(::testing::Return(true));
    return b;
  }
};

}  // namespace dmlcert::testing
