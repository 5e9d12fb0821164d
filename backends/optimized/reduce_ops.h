// The element operations of REDUCE, as small structs the vector kernels (kernels.inc) are
// instantiated with. Each has an input type In (float for FLOAT32 and FLOAT16 data, which is
// converted to float first), an accumulator type Acc, identity(), map(x) and op(acc, mapped).
// op() is a template so that it serves GCC vector types as well as scalars; vmap(a, v) maps a
// vector v of In, already converted to the Acc vector a, to what op() accumulates. Ops with
// kVector = false have no vector form (exp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#define DMLCERT_INLINE inline __attribute__((always_inline))

namespace dmlcert::optimized::ops {

// A plain sum of map(x) in Acc: the float sums below and the wrapping integer sums share it.
// Run: the type a lane accumulates a run of elements in before adding it to Acc (run_t below).
template <class InT, class AccT>
struct Accumulate {
  using In = InT;
  using Acc = AccT;
  using Run = AccT;
  static constexpr bool kVector = true;
  static DMLCERT_INLINE Acc identity() { return 0; }
  static DMLCERT_INLINE Acc map(In x) { return static_cast<Acc>(x); }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA d, V) {
    return d;
  }
  template <class V>
  static DMLCERT_INLINE V op(V a, V b) {
    return a + b;
  }
};

// Float sums of FLOAT32 data accumulate in double, in runs of float: each lane of a row sums up
// to Kernels::kRunSteps elements in float (Run) before it adds them into its double accumulator,
// and each column the Kernels::kRows rows the column engine reads at once. An element then passes
// through at most 15 float roundings, and never more than N-1 (a run holds at most N elements
// of a lane or column), so the result stays inside docs/semantics.md's bound
// (N-1)*u_acc*sum|x| + ulp_out (u_acc: the float32 unit roundoff) and, for large N, far inside
// it; exact-mode data stays exact (its partial sums are exact in float). Accumulating every
// element in double cost a conversion per 4 bytes read: from memory SUM and L2 over rows read at
// 0.87-0.88 of the read roofline where float runs read at 0.93-0.95, SUM over columns at
// 0.85-0.87 where 0.87-0.90 (interleaved runs, 2 GB on two cores). A kernel that spends fewer
// instructions per byte hides more of the wait for memory. FLOAT16 data accumulates in float
// (the default profile's accumulation type): a FLOAT16 value and its square are exact in float,
// and converting to double on top would make the kernel compute-bound.
template <class A>
struct Sum : Accumulate<float, A> {
  using Run = float;
};
template <class A>
struct AbsSum : Sum<A> {
  static DMLCERT_INLINE A map(float x) { return std::abs(static_cast<A>(x)); }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA d, V) {
    return d < 0 ? -d : d;
  }
};
// v, which the compiler may no longer fuse with what follows: GCC contracts a*b + c into one
// fused multiply-add by default in C++, and only the AVX2 and AVX-512 kernels have one, so a
// fused square would round differently on other machines.
template <class V>
DMLCERT_INLINE V unfused(V v) {
  asm("" : "+x"(v));
  return v;
}
template <class A>
struct SquareSum : Sum<A> {
  static DMLCERT_INLINE A map(float x) { return unfused(static_cast<A>(x) * static_cast<A>(x)); }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA d, V) {
    return unfused(d * d);
  }
};
using SumD = Sum<double>;
using AbsSumD = AbsSum<double>;
using SquareSumD = SquareSum<double>;

// Products stay in double throughout: a run of float products underflows or overflows where the
// double product does not.
struct ProductD : SumD {
  using Run = double;
  static DMLCERT_INLINE Acc identity() { return 1.0; }
  template <class A>
  static DMLCERT_INLINE A op(A a, A b) {
    return a * b;
  }
};

// Integer SUM, L1, SUM_SQUARE and MULTIPLY wrap in the unsigned type of the same width. Valid
// data keeps every partial result in range (REDUCE.INT_OVERFLOW), so the result modulo 2^bits is
// the exact result, in any order.
template <class T>
struct SumW : Accumulate<T, std::make_unsigned_t<T>> {};
template <class T>
struct AbsSumW : SumW<T> {
  using Acc = typename SumW<T>::Acc;
  static DMLCERT_INLINE Acc map(T x) { return x < 0 ? Acc(0) - static_cast<Acc>(x) : static_cast<Acc>(x); }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA u, V x) {
    return x < 0 ? VA{} - u : u;
  }
};
template <class T>
struct SquareSumW : SumW<T> {
  using Acc = typename SumW<T>::Acc;
  static DMLCERT_INLINE Acc map(T x) { return static_cast<Acc>(x) * static_cast<Acc>(x); }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA u, V) {
    return u * u;
  }
};
template <class T>
struct ProductW : SumW<T> {
  using Acc = typename SumW<T>::Acc;
  static DMLCERT_INLINE Acc identity() { return 1; }
  template <class A>
  static DMLCERT_INLINE A op(A a, A b) {
    return a * b;
  }
};

// MAX and MIN keep the accumulator on ties and ignore NaN (a comparison with NaN is false). The
// identity is -inf / +inf (lowest / highest for integers); reduce.cpp fixes up the results where
// the value alone is not enough: a zero (which of +0 and -0 came first) and an identity result
// (all NaN).
template <class T>
struct MaxV {
  using In = T;
  using Acc = T;
  static constexpr bool kVector = true;
  static DMLCERT_INLINE Acc identity() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  static DMLCERT_INLINE Acc map(In x) { return x; }
  template <class VA, class V>
  static DMLCERT_INLINE VA vmap(VA x, V) {
    return x;
  }
  template <class A>
  static DMLCERT_INLINE A op(A a, A x) {
    return x > a ? x : a;
  }
};
template <class T>
struct MinV : MaxV<T> {
  static DMLCERT_INLINE T identity() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  template <class A>
  static DMLCERT_INLINE A op(A a, A x) {
    return x < a ? x : a;
  }
};

// ARGMAX / ARGMIN: whether x beats the current best (strictly: the first index wins ties). For
// vectors, the lane mask.
struct Greater {
  template <class T>
  static DMLCERT_INLINE auto better(T x, T best) {
    return x > best;
  }
};
struct Less {
  template <class T>
  static DMLCERT_INLINE auto better(T x, T best) {
    return x < best;
  }
};

// Op::Run where the op declares one, Op::Acc otherwise.
template <class Op, class = void>
struct RunOf {
  using type = typename Op::Acc;
};
template <class Op>
struct RunOf<Op, std::void_t<typename Op::Run>> {
  using type = typename Op::Run;
};
template <class Op>
using run_t = typename RunOf<Op>::type;

// Folds L lane results into a[0] by a fixed pairwise tree (lane j with lane j + w, w halving from
// L / 2): for sums the error grows with log2(L), not L. The engine's fold and the kernels' row()
// share it, so the two give the same bits.
template <class Op, class Acc, int L>
DMLCERT_INLINE Acc fold_lanes(Acc (&a)[L]) {
  for (int w = L / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) a[j] = Op::op(a[j], a[j + w]);
  return a[0];
}

}  // namespace dmlcert::optimized::ops
