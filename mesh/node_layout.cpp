#include "mesh/node_layout.hpp"

#include <numeric>
#include <vector>

namespace meridian::mesh {

namespace {
// The ranks of comm on this rank's node (free it after use).
MPI_Comm node_of(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  return node;
}
}  // namespace

NodeLayout node_layout(MPI_Comm comm) {
  NodeLayout layout;
  MPI_Comm node = node_of(comm);
  MPI_Comm_rank(node, &layout.local_rank);
  MPI_Comm_size(node, &layout.local_ranks);
  MPI_Comm_free(&node);
  int leader = layout.local_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &layout.nodes, 1, MPI_INT, MPI_SUM, comm);
  return layout;
}

int ranks_sharing(MPI_Comm comm, const std::string& key) {
  MPI_Comm node = node_of(comm);
  int ranks = 1;
  MPI_Comm_size(node, &ranks);
  const int length = static_cast<int>(key.size());
  std::vector<int> lengths(ranks), offsets(ranks);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, node);
  std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::string keys(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  MPI_Allgatherv(key.data(), length, MPI_CHAR, keys.data(), lengths.data(), offsets.data(), MPI_CHAR, node);
  MPI_Comm_free(&node);
  int sharing = 0;
  for (int r = 0; r < ranks; ++r) sharing += keys.compare(offsets[r], lengths[r], key) == 0 ? 1 : 0;
  return sharing;
}

}  // namespace meridian::mesh
