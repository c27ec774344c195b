#pragma once
// The solvers this build knows, by their deck name ([solver] kind).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "io/deck.hpp"
#include "solvers/solver.hpp"

namespace meridian::solvers {

struct SolverEntry {
  std::string kind;
  std::string summary;
  void (*declare_keys)(io::Schema& schema);
  void (*validate)(const io::Deck& deck, MPI_Comm comm);  // build's checks without allocating
  std::unique_ptr<Solver> (*build)(const io::Deck& deck, MPI_Comm comm);
};

const std::vector<SolverEntry>& registry();
// The entry for a kind, or a DeckError naming the deck and listing the kinds there are.
const SolverEntry& find_solver(const std::string& kind, const std::string& deck_path);

}  // namespace meridian::solvers
