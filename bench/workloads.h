// The benchmark workloads: one operator descriptor each (all FLOAT32 [4096,4096] unless the name
// says otherwise), with deterministic data, and the buffers they run on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/operators.h"

namespace dmlcert::bench {

// Which roofline a workload is held to: a streaming copy of its output bytes (data movement) or a
// streaming read of its input bytes (reductions).
enum class Roofline { Copy, Read };

struct Workload {
  std::string name;
  OperatorDesc desc;
  Roofline roofline;
  uint64_t bytes;  // output bytes (Copy) or input bytes (Read): what SetBytesProcessed reports
};

// The bindings of one workload. The memory is allocated on first use and freed when another
// workload's buffers are requested, so the whole suite never holds more than one set.
struct Buffers {
  std::vector<std::byte> input, indices, updates, output;
  Bindings bindings();
};

const std::vector<Workload>& workloads();
Buffers& buffers_for(const Workload& w);

}  // namespace dmlcert::bench
