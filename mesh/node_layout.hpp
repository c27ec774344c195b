#pragma once
// Where a rank sits among the ranks that share its node (MPI_COMM_TYPE_SHARED), and how many nodes
// the job spans: what GPU binding, memory budgets, oversubscription and the job's end depend on.
#include <mpi.h>

#include <string>

namespace meridian::mesh {

struct NodeLayout {
  int local_rank = 0;   // this rank's index on its node
  int local_ranks = 1;  // ranks on this node
  int nodes = 1;        // nodes of the job
};

// Collective over comm.
NodeLayout node_layout(MPI_Comm comm);

// How many ranks of this rank's node (itself included) pass the same `key`: with a GPU's UUID, the ranks
// that share its memory. Collective over comm.
int ranks_sharing(MPI_Comm comm, const std::string& key);

}  // namespace meridian::mesh
