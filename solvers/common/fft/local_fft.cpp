#include "solvers/common/fft/local_fft.hpp"

#include <atomic>

namespace meridian::fft {
namespace {
std::atomic<long> allocations{0};
}  // namespace

long backend_allocations() { return allocations.load(); }
void count_backend_allocation() { ++allocations; }

}  // namespace meridian::fft
