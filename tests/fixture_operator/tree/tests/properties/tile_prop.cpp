// TILE's metamorphic property: the input is periodic in the output, so tiling a tiled tensor
// again equals tiling the input once by the product of the repeats.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "build.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

using proptest::run_reference;

Case tiled(const Case& base, TensorDesc input, Bytes data, std::vector<uint32_t> repeats) {
  Case c = base;
  TileDesc d;
  Sizes out = input.sizes;
  for (size_t i = 0; i < out.size(); ++i) out[i] *= repeats[i];
  d.output = packed_desc(input.type, out);
  d.input = std::move(input);
  d.repeats = std::move(repeats);
  c.op = d;
  c.data.input = std::move(data);
  return c;
}

RC_GTEST_PROP(ReferenceMetamorphic, TilingATiledTensorMultipliesTheRepeats, ()) {
  CaseSpec spec;
  spec.level = FeatureLevel::L5_0;
  spec.op = OpKind::TILE;
  const Case once = *case_for_spec(spec);
  const auto& d = std::get<TileDesc>(once.op);
  const uint64_t elements = element_count(d.output.sizes).value_or(0);
  RC_PRE(elements <= (uint64_t{1} << 16));
  // A second repeat of 1 or 2 per dimension, 1 where it would pass 2^18 output elements.
  std::vector<uint32_t> again, product;
  uint64_t grown = elements;
  for (size_t i = 0; i < d.repeats.size(); ++i) {
    const uint32_t r = grown * 2 <= (uint64_t{1} << 18) ? *rc::gen::inRange(1u, 3u) : 1u;
    grown *= r;
    again.push_back(r);
    product.push_back(d.repeats[i] * r);
  }
  const Case twice = tiled(once, packed_desc(d.output.type, d.output.sizes), run_reference(once), again);
  const Case by_product = tiled(once, d.input, once.data.input, product);
  RC_ASSERT(run_reference(twice) == run_reference(by_product));
}

}  // namespace
}  // namespace dmlcert::props
