#pragma once
// The build fingerprint: everything that must match between the host and a plugin for C++
// objects to cross the library boundary safely. It is compiled into each side separately, so a
// plugin built with another compiler, standard-library ABI, Boost or xtensor version, or other
// xtensor config macros, reports a different string and is refused with both strings shown.

#include <boost/version.hpp>

#include "radial/core/config.hpp"

#define RADIAL_FP_STR2(x) #x
#define RADIAL_FP_STR(x) RADIAL_FP_STR2(x)

#if defined(__clang__)
#define RADIAL_FP_COMPILER "clang-" RADIAL_FP_STR(__clang_major__)
#elif defined(__GNUC__)
#define RADIAL_FP_COMPILER "gcc-" RADIAL_FP_STR(__GNUC__)
#else
#define RADIAL_FP_COMPILER "unknown-compiler"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define RADIAL_FP_STDLIB "libstdc++-cxx11abi" RADIAL_FP_STR(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define RADIAL_FP_STDLIB "libc++-" RADIAL_FP_STR(_LIBCPP_ABI_VERSION)
#else
#define RADIAL_FP_STDLIB "unknown-stdlib"
#endif

#if defined(XTENSOR_USE_XSIMD)
#define RADIAL_FP_XSIMD "xsimd"
#else
#define RADIAL_FP_XSIMD "noxsimd"
#endif

#if defined(XTENSOR_USE_TBB)
#define RADIAL_FP_TBB "tbb"
#else
#define RADIAL_FP_TBB "notbb"
#endif

#define RADIAL_BUILD_FINGERPRINT                                                             \
  RADIAL_FP_COMPILER ";" RADIAL_FP_STDLIB ";boost-" BOOST_LIB_VERSION                        \
  ";xtensor-" RADIAL_FP_STR(XTENSOR_VERSION_MAJOR) "." RADIAL_FP_STR(XTENSOR_VERSION_MINOR)  \
  ";layout-" RADIAL_FP_STR(XTENSOR_DEFAULT_LAYOUT) ";" RADIAL_FP_XSIMD ";" RADIAL_FP_TBB

namespace radial {

// The fingerprint the framework library was built with.
const char* framework_fingerprint();

}  // namespace radial
