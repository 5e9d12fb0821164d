// What kind of build the tests run in: a sanitizer or a Debug build makes all code several times
// slower, so a bound on seconds that names a promise for the Release build is widened there.
#pragma once

namespace dmlcert::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
inline constexpr bool kInstrumented = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
inline constexpr bool kInstrumented = true;
#else
inline constexpr bool kInstrumented = false;
#endif
#else
inline constexpr bool kInstrumented = false;
#endif
#ifdef NDEBUG
inline constexpr bool kOptimized = !kInstrumented;
#else
inline constexpr bool kOptimized = false;
#endif
// How much slower than the Release build a bound may let code be.
inline constexpr double kSlowdown = kOptimized ? 1 : 10;

}  // namespace dmlcert::test
