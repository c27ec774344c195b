#pragma once
// Rank 0's answer for every rank (a path it resolved, an error it found), so all ranks act alike.
#include <mpi.h>

#include <string>

namespace meridian::io {

inline void broadcast_from_rank0(std::string& text, MPI_Comm comm) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
}

}  // namespace meridian::io
