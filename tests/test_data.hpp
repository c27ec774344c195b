#pragma once
// Where the tests' published reference tables (tests/data) are: MERIDIAN_TEST_DATA where set (the GPU bundle's
// env.sh points it into the bundle, since the build host's tree is not on the GPU machine), else the source
// tree the tests were built from.
#include <cstdlib>
#include <string>

#ifndef MERIDIAN_TEST_DATA_DIR
#error "MERIDIAN_TEST_DATA_DIR must name the source tree's tests/data"
#endif

inline std::string test_data(const std::string& file) {
  const char* bundled = std::getenv("MERIDIAN_TEST_DATA");
  return std::string(bundled && *bundled ? bundled : MERIDIAN_TEST_DATA_DIR) + "/" + file;
}
