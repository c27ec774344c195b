// libFuzzer target: deck text through parsing and every solver's validation, as `meridian check`
// runs them. A crash, a hang, a leak, an exception other than DeckError, or a DeckError that names
// neither a key nor the file and line is a finding.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>

#include "apps/driver.hpp"
#include "io/deck.hpp"
#include "solvers/registry.hpp"

namespace {

bool names_a_place(const std::string& message) {
  static const std::regex place(R"(key '[a-z_]+\.[a-z_0-9]+'|^fuzz\.toml:[0-9]+|--> fuzz\.toml)");
  return std::regex_search(message, place);
}

const meridian::io::Schema& schema_of(const meridian::solvers::SolverEntry& solver) {
  static std::map<std::string, meridian::io::Schema> schemas;  // decks keep a pointer to theirs
  auto it = schemas.find(solver.kind);
  if (it == schemas.end()) it = schemas.emplace(solver.kind, meridian::app::schema_for(solver)).first;
  return it->second;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& solver : meridian::solvers::registry()) {
    try {
      const meridian::io::Deck deck = meridian::io::Deck::from_text(text, "fuzz.toml", schema_of(solver));
      solver.validate(deck, MPI_COMM_SELF);
    } catch (const meridian::io::DeckError& e) {
      if (!names_a_place(e.what())) {
        std::fprintf(stderr, "a rejection that names no key, file or line:\n%s\n", e.what());
        std::abort();
      }
    }
  }
  return 0;
}
