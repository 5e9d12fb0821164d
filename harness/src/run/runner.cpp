#include "dmlcert/runner.h"
