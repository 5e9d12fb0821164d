// GATHER_ELEMENTS' metamorphic property: negative indices mean the same as their normalized form.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "build.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

using proptest::level_gen;
using proptest::run_reference;

// A negative index -d..-1 means d+value (from 3_0, signed index types): writing every index in
// the other form gives the same result.
RC_GTEST_PROP(ReferenceMetamorphic, NegativeGatherIndexEqualsItsNormalizedForm, ()) {
  CaseSpec spec;
  spec.level = *rc::gen::element(FeatureLevel::L3_0, FeatureLevel::L4_1, FeatureLevel::L5_0);
  spec.op = OpKind::GATHER_ELEMENTS;
  spec.index_type = *rc::gen::element(DataType::INT32, DataType::INT64);
  const Case c = *case_for_spec(spec);
  const auto& g = std::get<GatherElementsDesc>(c.op);
  Case flipped = c;
  auto values = decode_indices(g.indices.type, c.data.indices);
  const int64_t d = g.input.sizes[g.axis];
  for (int64_t& v : values) v = v < 0 ? v + d : v - d;
  flipped.data.indices = encode_indices(g.indices.type, values);
  RC_ASSERT(run_reference(c) == run_reference(flipped));
}

}  // namespace
}  // namespace dmlcert::props
