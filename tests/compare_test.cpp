#include <gtest/gtest.h>

#include "dmlcert/compare.h"
