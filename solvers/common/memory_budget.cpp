#include "solvers/common/memory_budget.hpp"

#include <Kokkos_Core.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "mesh/node_layout.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
#include "solvers/common/fft/cufft_batch.hpp"
#endif

namespace meridian::solvers {
namespace {
constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

#if !(defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT))
// The host's limits, for builds whose fields live in host memory.
// A number from the first line of a file ("max" and missing files are unlimited).
std::uint64_t number_in(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  return in >> value ? value : unlimited;
}

std::uint64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> name >> kib >> unit)
    if (name == "MemAvailable:") return kib * 1024;
  return unlimited;
}
#endif

std::string gib(std::uint64_t bytes) {
  std::ostringstream out;
  out.precision(3);
  if (bytes == unlimited)
    out << "over 1.7e10";  // the estimate overflowed 64 bits
  else
    out << "about " << static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  return out.str() + " GiB";
}
}  // namespace

std::uint64_t saturating_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t product = 1;
  for (const std::uint64_t f : factors)
    if (__builtin_mul_overflow(product, f, &product)) return unlimited;
  return product;
}

std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? unlimited : sum;
}

std::uint64_t bytes_available_per_rank(MPI_Comm comm) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
  // Ranks bound to one GPU (more ranks than GPUs on a node) share its memory. Told apart by the device's
  // UUID, which also separates GPUs isolated per rank (CUDA_VISIBLE_DEVICES: device 0 of each).
  const int sharing = mesh::ranks_sharing(comm, fft::cuda::device_uuid());
  return fft::cuda::device_memory_info().free / static_cast<std::uint64_t>(sharing);
#else
  std::uint64_t host = std::min({mem_available(), number_in("/sys/fs/cgroup/memory.max"),
                                 number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes")});
  const int local_ranks = mesh::node_layout(comm).local_ranks;
  return host == unlimited ? host : host / static_cast<std::uint64_t>(local_ranks);
#endif
}

void require_memory(const io::Deck& deck, const std::string& section, const std::string& key,
                    std::uint64_t bytes_per_rank, const std::string& what, MPI_Comm comm) {
  std::uint64_t budget = bytes_available_per_rank(comm);
  // Every rank decides alike: the tightest rank's budget against the largest rank's need.
  unsigned long long figures[2] = {bytes_per_rank, ~static_cast<unsigned long long>(budget)};
  MPI_Allreduce(MPI_IN_PLACE, figures, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  bytes_per_rank = figures[0];
  budget = ~figures[1];
  if (bytes_per_rank <= budget) return;
  deck.fail(section, key,
            "the run needs " + gib(bytes_per_rank) + " per rank for " + what + ", more than the " + gib(budget) +
                " this rank can have; use more ranks or a smaller problem");
}

MemoryUse memory_use() {
  MemoryUse use;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) use.peak_resident = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // KiB
#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
  const fft::cuda::DeviceMemoryInfo device = fft::cuda::device_memory_info();
  use.device_total = device.total;
  use.device_used = device.total - device.free;
#endif
  return use;
}

}  // namespace meridian::solvers
