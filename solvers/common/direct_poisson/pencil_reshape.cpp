#include "solvers/common/direct_poisson/pencil_reshape.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "mesh/timers.hpp"
#include "parallel/fence.hpp"
#include "parallel/box_copy.hpp"

namespace meridian::direct_poisson {

namespace {

Box intersection(const Box& a, const Box& b) {
  Box both;
  for (int axis = 0; axis < 3; ++axis) {
    both.offset[axis] = std::max(a.offset[axis], b.offset[axis]);
    const long end = std::min(a.offset[axis] + a.count[axis], b.offset[axis] + b.count[axis]);
    both.count[axis] = std::max(end - both.offset[axis], 0L);
  }
  return both;
}

using parallel::BoxPlacement;

// Where index (z, y, x) of `box`, counted from its corner, lies in a block.
BoxPlacement placement(const BlockLayout& layout, const Box& box) {
  const Kokkos::Array<long, 3> stride = logical_strides(layout);
  long first = 0;
  for (int axis = 0; axis < 3; ++axis) first += (box.offset[axis] - layout.box.offset[axis]) * stride[axis];
  return {stride, first};
}

bool same_places(const BlockLayout& a, const BlockLayout& b) {
  const Kokkos::Array<long, 3> sa = logical_strides(a), sb = logical_strides(b);
  for (int axis = 0; axis < 3; ++axis)
    if (a.box.offset[axis] != b.box.offset[axis] || a.box.count[axis] != b.box.count[axis] ||
        (a.box.count[axis] > 1 && sa[axis] != sb[axis]))
      return false;
  return true;
}

int as_count(long n) {
  if (n > INT_MAX) throw std::runtime_error("pencil reshape: a message of " + std::to_string(n) + " values exceeds MPI's int count");
  return static_cast<int>(n);
}

}  // namespace

Kokkos::Array<long, 3> logical_strides(const BlockLayout& layout) {
  Kokkos::Array<long, 3> stride{};
  long s = 1;
  for (int d = 2; d >= 0; --d) {
    stride[layout.order[d]] = s;
    s *= layout.box.count[layout.order[d]];
  }
  return stride;
}

PencilReshape::PencilReshape(MPI_Comm comm, const std::vector<BlockLayout>& from, const std::vector<BlockLayout>& to,
                             mesh::MessagePath path, Workspace& workspace)
    : comm_(comm) {
  int me = 0, ranks = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &ranks);
  if (static_cast<int>(from.size()) != ranks || static_cast<int>(to.size()) != ranks)
    throw std::invalid_argument("pencil reshape: one block per rank is needed before and after");
  single_rank_ = ranks == 1;
  from_ = from[me], to_ = to[me];
  own_ = intersection(from_.box, to_.box);
  for (int r = 0; r < ranks; ++r) {
    const Box out = r == me ? Box{} : intersection(from_.box, to[r].box);
    const Box in = r == me ? Box{} : intersection(to_.box, from[r].box);
    send_offsets_.push_back(as_count(sent_)), receive_offsets_.push_back(as_count(received_));
    send_counts_.push_back(as_count(out.size())), receive_counts_.push_back(as_count(in.size()));
    if (out.size() > 0) sends_.push_back({r, out, sent_});
    if (in.size() > 0) receives_.push_back({r, in, received_});
    sent_ += out.size(), received_ += in.size();
  }
  int unchanged = same_places(from_, to_) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &unchanged, 1, MPI_INT, MPI_LAND, comm);
  identity_ = unchanged == 1;
  send_ = workspace.message_buffer(Workspace::Message::send, static_cast<std::size_t>(std::max(sent_, 1L)), path);
  receive_ = workspace.message_buffer(Workspace::Message::receive, static_cast<std::size_t>(std::max(received_, 1L)), path);
}

void PencilReshape::operator()(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) {
  timing::ScopedTimer timer("direct poisson reshape");
  if (own_.size() > 0)
    parallel::copy_box("direct_poisson::reshape_own", own_.count, in.data(), placement(from_, own_), out.data(),
                       placement(to_, own_));
  if (single_rank_) return;  // MPI_Alltoallv is collective: every rank of a larger communicator takes part
  for (const Segment& s : sends_)
    parallel::copy_box("direct_poisson::pack", s.box.count, in.data(), placement(from_, s.box), send_.values().data(),
                       parallel::packed_placement(s.box.count, s.at));
  parallel::fence();  // MPI reads the packed buffer
  double* sending = send_.send_from(static_cast<std::size_t>(sent_));
  MPI_Alltoallv(sending, send_counts_.data(), send_offsets_.data(), MPI_DOUBLE, receive_.receive_into(),
                receive_counts_.data(), receive_offsets_.data(), MPI_DOUBLE, comm_);
  receive_.received(static_cast<std::size_t>(received_));
  for (const Segment& s : receives_)
    parallel::copy_box("direct_poisson::unpack", s.box.count, receive_.values().data(),
                       parallel::packed_placement(s.box.count, s.at), out.data(), placement(to_, s.box));
}

}  // namespace meridian::direct_poisson
