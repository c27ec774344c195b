#include "solvers/common/sparse/banded_cholesky.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>
#include <stdexcept>
#include <string>

namespace meridian::sparse {

namespace {

using Adjacency = std::vector<std::vector<int>>;

Adjacency adjacency_of(const CsrHost& a) {
  Adjacency neighbours(a.rows());
  for (int r = 0; r < a.rows(); ++r) {
    auto& row = neighbours[r];
    for (int n = a.row_offsets[r]; n < a.row_offsets[r + 1]; ++n)
      if (a.columns[n] != r) row.push_back(a.columns[n]);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
  return neighbours;
}

// Breadth-first from `start`, each node's unvisited neighbours in increasing degree (Cuthill-McKee), over the
// nodes not yet `placed`; appends them to `order` and returns the last one, which lies farthest from `start`.
int breadth_first(const Adjacency& g, int start, std::vector<char>& placed, std::vector<int>& order) {
  const auto degree = [&](int v) { return g[v].size(); };
  std::queue<int> frontier;
  frontier.push(start);
  placed[start] = 1;
  int last = start;
  while (!frontier.empty()) {
    const int v = frontier.front();
    frontier.pop();
    order.push_back(v);
    last = v;
    std::vector<int> next;
    for (const int w : g[v])
      if (!placed[w]) next.push_back(w), placed[w] = 1;
    std::stable_sort(next.begin(), next.end(), [&](int a, int b) { return degree(a) < degree(b); });
    for (const int w : next) frontier.push(w);
  }
  return last;
}

// Reverse Cuthill-McKee, each connected part started from the far end of a search from its lowest-numbered
// node (a pseudo-peripheral node, which keeps the level sets, and so the band, narrow).
std::vector<int> reverse_cuthill_mckee(const Adjacency& g) {
  const std::size_t n = g.size();
  std::vector<char> placed(n, 0);
  std::vector<int> order;
  order.reserve(n);
  for (std::size_t v = 0; v < n; ++v) {
    if (placed[v]) continue;
    std::vector<char> scratch = placed;
    std::vector<int> ignored;
    const int start = breadth_first(g, static_cast<int>(v), scratch, ignored);
    breadth_first(g, start, placed, order);
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace

BandedCholesky::BandedCholesky(const CsrHost& a) : size_(a.rows()), position_(size_) {
  const std::vector<int> order = reverse_cuthill_mckee(adjacency_of(a));
  for (int p = 0; p < size_; ++p) position_[order[p]] = p;
  for (int r = 0; r < size_; ++r)
    for (int n = a.row_offsets[r]; n < a.row_offsets[r + 1]; ++n)
      band_ = std::max(band_, std::abs(position_[r] -
                                       position_[a.columns[n]]));
  factor_.assign(static_cast<std::size_t>(size_) * (band_ + 1), 0.0);
  ordered_.resize(size_);
  for (int r = 0; r < size_; ++r)
    for (int n = a.row_offsets[r]; n < a.row_offsets[r + 1]; ++n) {
      const int p = position_[r];
      const int q = position_[a.columns[n]];
      if (q <= p) factor(p, q) += a.values[n];
    }
  // Cholesky-Banachiewicz, row by row within the band: L(p, q) = (A(p, q) - sum_k L(p, k) L(q, k)) / L(q, q).
  for (int p = 0; p < size_; ++p)
    for (int q = std::max(0, p - band_); q <= p; ++q) {
      double s = factor(p, q);
      for (int k = std::max(0, p - band_); k < q; ++k) s -= factor(p, k) * factor(q, k);
      if (q < p) {
        factor(p, q) = s / factor(q, q);
      } else if (s > 1e-12 * factor(p, p)) {  // a pivot lost to round-off: singular
        factor(p, p) = std::sqrt(s);
      } else {
        throw std::runtime_error("BandedCholesky: the matrix is not positive definite (pivot " + std::to_string(s) +
                                 " at row " + std::to_string(order[p]) + ")");
      }
    }
}

void BandedCholesky::solve(std::vector<double>& b) const {
  std::vector<double>& y = ordered_;
  for (int r = 0; r < size_; ++r) y[position_[r]] = b[r];
  for (int p = 0; p < size_; ++p) {
    double s = y[p];
    for (int q = std::max(0, p - band_); q < p; ++q) s -= factor(p, q) * y[q];
    y[p] = s / factor(p, p);
  }
  for (int p = size_ - 1; p >= 0; --p) {
    double s = y[p];
    for (int r = p + 1; r <= std::min(size_ - 1, p + band_); ++r) s -= factor(r, p) * y[r];
    y[p] = s / factor(p, p);
  }
  for (int r = 0; r < size_; ++r) b[r] = y[position_[r]];
}

}  // namespace meridian::sparse
