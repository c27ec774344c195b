#include "mesh/node_layout.hpp"

namespace meridian::mesh {

NodeLayout node_layout(MPI_Comm comm) {
  NodeLayout layout;
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &layout.local_rank);
  MPI_Comm_size(node, &layout.local_ranks);
  MPI_Comm_free(&node);
  int leader = layout.local_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &layout.nodes, 1, MPI_INT, MPI_SUM, comm);
  return layout;
}

}  // namespace meridian::mesh
