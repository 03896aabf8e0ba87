#pragma once
// The message of the DataError that `read` throws; the test fails when none is thrown.

#include <string>

#include <catch2/catch.hpp>

#include "radial/core/errors.hpp"

namespace radial::testing {

template <class F>
std::string data_error(F&& read) {
  try {
    read();
  } catch (const DataError& error) {
    return error.what();
  }
  FAIL("no DataError was thrown");
  return {};
}

}  // namespace radial::testing
