#include "mesh/timers.hpp"

namespace meridian::timing {
std::map<std::string, double>& phase_seconds() {
  static std::map<std::string, double> table;
  return table;
}
}  // namespace meridian::timing
