#include "solvers/common/stop_request.hpp"

namespace meridian::solvers {
namespace {
StopQuery& installed() {
  static StopQuery query = nullptr;
  return query;
}
}  // namespace

void set_stop_query(StopQuery query) { installed() = query; }
bool stop_requested_now() { return installed() && installed()(); }

}  // namespace meridian::solvers
