#pragma once
// xtensor configuration macros change container layouts and so are part of the plugin ABI.
// Every Radial translation unit reaches xtensor through this header, and the build
// fingerprint (radial/plugin/fingerprint.hpp) records the values in force, so a plugin built with
// different settings is refused at load instead of corrupting memory.
//
// Radial keeps xtensor's defaults: row-major layout, std::allocator, no xsimd inside
// containers (vectorised kernels use xsimd directly, see numerics/vector_math.hpp).

#include <xtensor/xtensor.hpp>
#include <xtensor/xtensor_config.hpp>
