#pragma once
// Whether a run fits the memory it has, decided from the deck before anything is allocated. Each
// solver estimates its bytes per rank (in saturating 64-bit arithmetic, so 1e9 x 1e9 cells cannot wrap
// to a small number); the budget is what this rank may have: the smaller of the cgroup's limit and
// MemAvailable, shared by the node's ranks, or the device's free memory on a GPU build.
#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "io/deck.hpp"

namespace meridian::solvers {

// The product of the factors, or UINT64_MAX if it does not fit.
std::uint64_t saturating_product(std::initializer_list<std::uint64_t> factors);
// a + b, or UINT64_MAX if it does not fit.
std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b);

// Bytes this rank may allocate: its share of the host's memory among the node's ranks, or on a CUDA build
// of its GPU's among the ranks bound to that GPU. Collective over `comm`.
std::uint64_t bytes_available_per_rank(MPI_Comm comm);

// A deck error (exit 2) naming `key` when `bytes_per_rank` exceeds the budget; `what` says what the
// memory is for ("fields and stage buffers", ...). Collective.
void require_memory(const io::Deck& deck, const std::string& section, const std::string& key,
                    std::uint64_t bytes_per_rank, const std::string& what, MPI_Comm comm);

// What this process holds, for a run's summary: its peak resident host memory (the kernel's high-water mark)
// and, on a CUDA build, the memory in use on its device (by every process there: ranks sharing it, the CUDA
// contexts) and the device's size; bytes, zeros where there is no device.
struct MemoryUse {
  std::uint64_t peak_resident = 0, device_used = 0, device_total = 0;
};
MemoryUse memory_use();

}  // namespace meridian::solvers
