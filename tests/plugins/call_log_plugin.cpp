// A correct GATHER_ELEMENTS-only backend that writes one line per call to the file named by
// DMLCERT_CALL_LOG: whether the indices it was given, read through their own strides from the
// binding, hold one outside the range the level allows (GATHERELEMENTS.INDEX_RANGE: [0, d), or
// [-d, d) for a signed index type from 3_0), and what it answered. It rejects such calls and runs
// the reference otherwise. The behaviour profile of its certification must count exactly the
// calls its log marks (profile_truth_test.cpp): what the harness judged is what the backend got.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "dmlcert/indices.h"
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

bool signed_index(DataType t) {
  return t == DataType::INT32 || t == DataType::INT64;
}

// Any index outside the level's range, as the bytes of the binding hold it. The range is written
// out here rather than taken from dmlcert/indices.h, so that the log does not share the harness's
// own reading of GATHERELEMENTS.INDEX_RANGE.
bool index_out_of_range(const GatherElementsDesc& d, FeatureLevel level, ConstBuffer indices) {
  const int64_t dsize = d.input.sizes[d.axis];
  const bool negative = signed_index(d.indices.type) && level >= FeatureLevel::L3_0;
  const std::vector<uint64_t> strides = effective_strides(d.indices);
  const size_t es = element_size(d.indices.type);
  bool out = false;
  for_each_offset(d.indices.sizes, strides, [&](uint64_t offset) {
    const auto v = integer_value(d.indices.type, indices.data + offset * es);
    if (v && (*v >= dsize || *v < (negative ? -dsize : 0))) out = true;
  });
  return out;
}

void log_line(const std::string& line) {
  const char* path = std::getenv("DMLCERT_CALL_LOG");
  if (!path) return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());  // one write per line: whole under O_APPEND
  ::close(fd);
}

class CallLog final : public Backend {
 public:
  std::string name() const override { return "call-logging test plugin"; }
  FeatureLevel max_feature_level() const override { return reference_->max_feature_level(); }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    return op == OpKind::GATHER_ELEMENTS && reference_->implements(op, function, type);
  }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    if (op_kind(desc) != OpKind::GATHER_ELEMENTS)
      return exec_result(Status::Unsupported, Fault::None, "this backend implements GATHER_ELEMENTS only");
    if (!accepted(desc, level)) return reference_->execute(desc, level, b);
    const bool out = index_out_of_range(std::get<GatherElementsDesc>(desc), level, b.indices);
    log_line(out ? "out-of-range rejected\n" : "in-range executed\n");
    if (out) return exec_result(Status::InvalidArgument, Fault::None, "GATHERELEMENTS.INDEX_RANGE");
    return reference_->execute(desc, level, b);
  }

 private:
  std::unique_ptr<Backend> reference_ = reference::make_backend();
};

}  // namespace

plugin::AdapterHooks misbehaviour() {
  return {};
}

std::unique_ptr<Backend> backend() {
  return std::make_unique<CallLog>();
}

}  // namespace dmlcert::test_plugins
