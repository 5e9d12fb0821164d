// Guarded CaseBuffers in this process: the isolation child's memory layout (call_memory.h),
// mapped here. Inputs are read-only pages; every binding is preceded by canary bytes and followed
// by a no-access page. A write to an input or past a binding kills the process at the faulting
// instruction, so use it where that is what a test wants to see, or in a child process.
#pragma once

#include <memory>
#include <string>

#include "dmlcert/case_buffers.h"

namespace dmlcert::plugin {

std::unique_ptr<CaseBuffers> allocate_guarded_case_buffers(const Case& c, CaseClass case_class,
                                                           uint64_t max_bytes, std::string* why);

}  // namespace dmlcert::plugin
