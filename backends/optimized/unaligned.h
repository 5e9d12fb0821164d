// Element types with alignment 1. User buffers need not be aligned to their element size (an
// output that ends at a page boundary may start 4 bytes off an 8-byte boundary), so kernels
// never read through a plain T*: the compiler could then assume alignment when it vectorizes.
#pragma once

#include <cstdint>

namespace dmlcert::optimized {

template <class T>
struct unaligned;

#define DMLCERT_UNALIGNED(T, NAME)                       \
  typedef T NAME __attribute__((aligned(1), may_alias)); \
  template <>                                            \
  struct unaligned<T> {                                  \
    using type = NAME;                                   \
  };

DMLCERT_UNALIGNED(uint8_t, u8u)
DMLCERT_UNALIGNED(uint16_t, u16u)
DMLCERT_UNALIGNED(uint32_t, u32u)
DMLCERT_UNALIGNED(uint64_t, u64u)
DMLCERT_UNALIGNED(int8_t, i8u)
DMLCERT_UNALIGNED(int16_t, i16u)
DMLCERT_UNALIGNED(int32_t, i32u)
DMLCERT_UNALIGNED(int64_t, i64u)
DMLCERT_UNALIGNED(float, f32u)
DMLCERT_UNALIGNED(double, f64u)

#undef DMLCERT_UNALIGNED

template <class T>
using unaligned_t = typename unaligned<T>::type;

// An element that is only moved (copied, gathered), never computed with. A typedef's aligned(1)
// is dropped once the typedef is a template argument, so copy_run_typed<u64u> read through an
// 8-aligned type after all (misaligned loads under UBSan on buffers placed against a guard
// page); a packed struct is a type of its own and keeps alignment 1 through any template.
template <class T>
struct __attribute__((packed, may_alias)) moved {
  T bits;
};
static_assert(alignof(moved<uint64_t>) == 1 && sizeof(moved<uint64_t>) == 8);

}  // namespace dmlcert::optimized
