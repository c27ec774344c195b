#pragma once
// The floating-point precision of a solver's fields or paths (`numerics.precision`). Single precision
// halves the memory traffic of bandwidth-bound kernels; every sum over cells or paths (mass, prices,
// standard errors) is still accumulated in double. A restart may not change it: the checkpoint's
// datasets have the precision's type, and the bits of a restart depend on it.
#include <string>

#include "io/deck.hpp"

namespace meridian::solvers {

enum class Precision { single, double_ };

// Declares `numerics.precision` for a solver that supports both precisions; `what` names what is
// stored in that precision ("tracer fields", "paths").
void declare_precision_key(io::Schema& schema, const std::string& what);
Precision precision(const io::Deck& deck);
const char* precision_name(Precision p);

}  // namespace meridian::solvers
