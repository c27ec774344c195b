#pragma once
// Decks for tests: a solver's full schema and a deck built from `section.key=value` settings.
#include <map>
#include <string>
#include <vector>

#include "apps/driver.hpp"

namespace meridian::testing {

inline const io::Schema& schema_of(const std::string& kind) {
  // One schema per kind for the whole test run: decks keep a pointer to theirs.
  static std::map<std::string, io::Schema> schemas;
  auto it = schemas.find(kind);
  if (it == schemas.end()) it = schemas.emplace(kind, app::schema_for(solvers::find_solver(kind, "test"))).first;
  return it->second;
}

inline io::Deck deck_of(const std::string& kind, const std::vector<std::string>& settings) {
  std::vector<io::Override> overrides;
  for (const auto& s : settings) overrides.push_back(io::Override::parse(s));
  return io::Deck::from_text("[solver]\nkind = \"" + kind + "\"\n", "test", schema_of(kind), overrides);
}

}  // namespace meridian::testing
