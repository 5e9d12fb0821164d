// libFuzzer target: the C ABI conversion (backends/plugin/abi_convert.h), both ways. The first
// byte picks the direction:
//  - even: a descriptor as the harness holds it (decoded from the wire format, any values) is
//    converted to the C structs a plugin receives and read back; what the ABI can carry must come
//    back unchanged.
//  - odd: C structs as a plugin could be handed them (any tags, counts, types, null pointers) are
//    read by from_abi; what it accepts must convert back to the same descriptor.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "plugin/abi_convert.h"
#include "plugin/wire.h"

namespace {

using namespace dmlcert;
using namespace dmlcert::plugin;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "abi_fuzzer: %s\n", what.c_str());
  std::abort();
}

// Converts d to the C structs and back; the result must be d.
void round_trip(const OperatorDesc& d) {
  const AbiOperator abi(d);
  if (abi.unrepresentable()) return;
  std::string error;
  const auto back = from_abi(*abi.get(), &error);
  if (!back) finding("the harness's own descriptor is refused: " + error);
  if (*back != d) finding("a descriptor changes through the C ABI");
}

// Every array handed to from_abi has this many elements, whatever count it is given with.
constexpr uint32_t kMaxCount = 16;

template <class E>
const E* array(FuzzedDataProvider& in, std::deque<std::vector<E>>& keep) {
  if (in.ConsumeIntegralInRange(0, 15) == 0) return nullptr;
  std::vector<E>& v = keep.emplace_back(kMaxCount);
  for (E& e : v) e = in.ConsumeIntegral<E>();
  return v.data();
}

void raw_structs(FuzzedDataProvider& in) {
  const auto ops = all_ops();
  const OpKind kind = ops[in.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];
  OperatorDesc shape = make_desc(kind);
  std::deque<std::vector<uint32_t>> u32s;
  std::deque<std::vector<int32_t>> i32s;
  std::deque<dmlcert_tensor_desc> tensors;
  dmlcert_operator_desc op{};
  std::string error;
  visit(shape, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    typename D::Abi abi{};
    for_each_tensor_field<D>([&](const auto& field) {
      if (in.ConsumeIntegralInRange(0, 31) == 0) return;  // a null tensor pointer
      dmlcert_tensor_desc& t = tensors.emplace_back();
      t.data_type = in.ConsumeBool() ? to_abi(kAllDataTypes[in.ConsumeIntegralInRange(0, kDataTypeCount - 1)])
                                     : in.ConsumeIntegral<uint32_t>();
      t.dimension_count = in.ConsumeIntegralInRange<uint32_t>(0, kMaxCount);
      t.sizes = array(in, u32s);
      t.strides = in.ConsumeBool() ? array(in, u32s) : nullptr;
      t.total_tensor_size_in_bytes = in.ConsumeIntegral<uint64_t>();
      abi.*field.abi = &t;
    });
    for_each_param_field<D>([&](const auto& field) {
      using AbiT = std::remove_cvref_t<decltype(abi.*field.abi)>;
      if constexpr (std::is_same_v<AbiT, const uint32_t*>) {
        abi.*field.abi = array(in, u32s);
        abi.*field.abi_count = in.ConsumeIntegralInRange<uint32_t>(0, kMaxCount);
      } else if constexpr (std::is_same_v<AbiT, const int32_t*>) {
        abi.*field.abi = array(in, i32s);
        abi.*field.abi_count = in.ConsumeIntegralInRange<uint32_t>(0, kMaxCount);
      } else {
        abi.*field.abi = in.ConsumeIntegral<uint32_t>();
      }
    });
    // The tag is the struct's, or a value no operator has: another operator's tag on this struct
    // breaks the ABI's contract, and reading it would be the caller's fault, not the converter's.
    op.type = D::kInfo.abi_type;
    if (const uint32_t tag = in.ConsumeIntegral<uint32_t>();
        in.ConsumeIntegralInRange(0, 15) == 0 && !op_from_abi(tag))
      op.type = tag;
    op.desc = &abi;
    if (const auto d2 = from_abi(op, &error)) round_trip(*d2);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    wire::Reader rd(bytes);
    if (const auto d = rd.desc()) round_trip(*d);
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    raw_structs(in);
  }
  return 0;
}
