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
    const auto [it, fresh] = index_type_.try_emplace(descriptor_key(key), d->indices.type);
    GatherElementsDesc kernel = *d;
    kernel.indices.type = it->second;
    const InputTensor input(kernel.input, b.input.data);
    const InputTensor indices(kernel.indices, b.indices.data);
    const OutputTensor output(kernel.output, b.output.data);
    const uint32_t extent = kernel.input.sizes[kernel.axis];
    std::vector<uint32_t> resolved;
    for_each_coord(kernel.indices.sizes, [&](const Coord& c) {
      const auto v = resolve_index(kernel.indices.type, indices.at(c), extent, level);
      resolved.push_back(v ? *v : 0);
    });
    std::size_t next = 0;
    for_each_coord(kernel.output.sizes, [&](const Coord& c) {
      Coord from = c;
      from[kernel.axis] = resolved[next++];
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_kernel_cache_ignores_index_type,
                      dmlcert::mutants::GatherElementsKernelCacheIgnoresIndexType)
