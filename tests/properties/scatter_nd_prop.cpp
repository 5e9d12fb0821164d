// SCATTER_ND's metamorphic property: negative indices mean the same as their normalized form.
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
// the other form gives the same result. Tuple component j indexes input dimension first_indexed+j.
RC_GTEST_PROP(ReferenceMetamorphic, NegativeScatterIndexEqualsItsNormalizedForm, ()) {
  CaseSpec spec;
  spec.level = *rc::gen::element(FeatureLevel::L3_0, FeatureLevel::L4_1, FeatureLevel::L5_0);
  spec.op = OpKind::SCATTER_ND;
  spec.index_type = *rc::gen::element(DataType::INT32, DataType::INT64);
  const Case c = *case_for_spec(spec);
  const auto& s = std::get<ScatterNdDesc>(c.op);
  const ScatterGeometry g = *s.geometry();
  Case flipped = c;
  auto values = decode_indices(s.indices.type, c.data.indices);
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t d = s.input.sizes[g.first_indexed + i % g.k];
    values[i] = values[i] < 0 ? values[i] + d : values[i] - d;
  }
  flipped.data.indices = encode_indices(s.indices.type, values);
  RC_ASSERT(run_reference(c) == run_reference(flipped));
}

}  // namespace
}  // namespace dmlcert::props
