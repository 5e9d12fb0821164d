// The property suite's main: gives rapidcheck a default budget that keeps the whole suite
// within a few minutes on two cores. RC_PARAMS, when set, replaces it entirely (for example
// RC_PARAMS="max_success=2000 max_size=100" for a long run, or "reproduce=..." to replay).
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "max_success=100 max_size=50", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
