// GATHER_ELEMENTS that compiles a kernel per shape and keeps it: the index width is baked into
// the kernel. BUG: the cache key has the sizes, the strides, the axis and the data type, not the
// index type (nor the indices' size in bytes, which follows from it), so a later call with another
// index type reads its indices at the first call's width.
#include <map>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsKernelCacheIgnoresIndexType final : public PatchedReference {
  std::map<std::string, DataType> index_type_;  // the index type each kernel was compiled for

  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    GatherElementsDesc key = *d;
    key.indices.type = DataType::INT32;  // BUG: the index type is not part of the key
    key.indices.total_bytes = 0;
    const auto it = index_type_.try_emplace(descriptor_key(key), d->indices.type).first;
    GatherElementsDesc kernel = *d;
    kernel.indices.type = it->second;
    const uint32_t extent = kernel.input.sizes[kernel.axis];
    // Out-of-range data (class U) is read as 0, which any result may be.
    return gather_elements_with(kernel, b, [&](const std::byte* p) -> std::optional<uint32_t> {
      return resolve_index(kernel.indices.type, p, extent, level).value_or(0);
    });
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_kernel_cache_ignores_index_type,
                      dmlcert::mutants::GatherElementsKernelCacheIgnoresIndexType)
