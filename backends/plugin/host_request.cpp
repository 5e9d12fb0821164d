#include "plugin/host_request.h"

#include <memory>

#include "plugin/wire.h"

namespace dmlcert::plugin {
namespace {

ExecResult run_call(Backend& backend, wire::Reader& rd, uint64_t call, int mem_fd, int mem_read_only_fd,
                    uint64_t page, CallWatch& watch, OpKind& op) {
  const uint8_t level = rd.u8();
  auto desc = rd.desc();
  const CallLayout layout = wire::read_layout(rd);
  if (!rd.ok() || !desc || level >= kFeatureLevelCount)
    return exec_result(Status::Error, Fault::None, "plugin host: malformed request");
  op = op_kind(*desc);
  std::string why;
  std::unique_ptr<GuardedView> view = GuardedView::map(mem_fd, layout, page, &why, mem_read_only_fd);
  if (!view) return exec_result(Status::Error, Fault::None, "plugin host: " + why);
  watch.started(call, *view);
  ExecResult result = backend.execute(*desc, static_cast<FeatureLevel>(level), view->bindings());
  const Bindings bindings = view->bindings();
  const auto [begin, bytes] = view->release();
  watch.finished(call, begin, bytes, bindings);
  return result;
}

}  // namespace

std::string answer_request(Backend& backend, const std::string& request, int mem_fd, uint64_t page,
                           CallWatch& watch, int mem_read_only_fd) {
  wire::Reader rd(request);
  const auto kind = static_cast<wire::Request>(rd.u8());
  wire::Writer w;
  if (rd.ok() && kind == wire::Request::Call) {
    const uint64_t call = rd.u64();
    OpKind op = OpKind::SLICE;
    const ExecResult result = run_call(backend, rd, call, mem_fd, mem_read_only_fd, page, watch, op);
    w.u32(static_cast<uint32_t>(result.status));
    w.str(result.message);
    w.u32(static_cast<uint32_t>(result.violations.size()));
    for (const auto& v : result.violations) w.str(v.rule), w.str(v.message);
    w.u8(result.not_asked);
    w.str(watch.interference());
    w.vec(watch.edges(op));
  }
  return w.bytes();
}

}  // namespace dmlcert::plugin
