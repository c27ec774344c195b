#pragma once
// The atmosphere solver as its tests build and read it: from `section.key=value` settings, and its diagnostics
// by name.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "deck_for_tests.hpp"
#include "solvers/atmosphere/atmosphere_solver.hpp"

namespace meridian::testing {

inline std::unique_ptr<atmosphere::AtmosphereSolver> build_atmosphere(const std::vector<std::string>& settings) {
  auto solver = atmosphere::build(deck_of("atmosphere", settings), MPI_COMM_WORLD);
  return std::unique_ptr<atmosphere::AtmosphereSolver>(dynamic_cast<atmosphere::AtmosphereSolver*>(solver.release()));
}

inline std::map<std::string, double> diagnostics(atmosphere::AtmosphereSolver& s) {
  std::map<std::string, double> out;
  for (const auto& d : s.diagnostics(0)) out[d.name] = d.value;
  return out;
}

}  // namespace meridian::testing
