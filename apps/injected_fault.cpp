#include "apps/injected_fault.hpp"

#include <cstdlib>
#include <sstream>

namespace meridian::app {

InjectedFault injected_fault() {
  InjectedFault fault;
  const char* text = std::getenv("MERIDIAN_FAULT");
  if (!text) return fault;
  std::istringstream in(text);
  char colon = 0;
  in >> fault.rank >> colon >> fault.step >> colon;
  std::getline(in, fault.kind);
  return fault;
}

}  // namespace meridian::app
