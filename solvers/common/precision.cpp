#include "solvers/common/precision.hpp"

namespace meridian::solvers {

void declare_precision_key(io::Schema& schema, const std::string& what) {
  schema.add({"numerics", "precision", io::KeyType::string, std::string("double"), "",
              "floating-point type of the " + what +
                  "; sums over cells and paths are accumulated in double either way (fixed at the first run)",
              {"double", "single"}});
}

Precision precision(const io::Deck& deck) {
  return deck.string("numerics", "precision") == "single" ? Precision::single : Precision::double_;
}

const char* precision_name(Precision p) { return p == Precision::single ? "single" : "double"; }

}  // namespace meridian::solvers
