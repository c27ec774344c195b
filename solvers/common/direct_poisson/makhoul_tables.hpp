#pragma once
// Makhoul's form of each transform kind (axis_transform.hpp lists them) as tables, so that one set of kernels
// runs every kind, along one axis (axis_transform.hpp) or along two at once (plane_transform.hpp). For a row x of
// n values, with V the FFT of length m of the FFT's real input and C the coefficients:
//   forward   input q = gather.sign[q] x[gather.index[q]];  C_s = Re(conj(t_s) V[post.index[s]]),
//             t_s = (post.twiddle[2s], post.twiddle[2s + 1]); V_k for k > m / 2 is conj(V_(m-k)) (a real input's)
//   backward  V_k = alpha_k C[a_k] + beta_k C[b_k] for every k < m (a term is absent where its index is -1;
//             pre.index (a_k, b_k), pre.weight (alpha_k, beta_k) as (real, imaginary) pairs);
//             x_p = scatter.sign[p] v[scatter.index[p]] of v, the inverse FFT of V
// backward(forward(x)) = normalisation(kind, n) x. The backward's V_k holds for every k, so along an axis whose
// FFT is complex (the first of a plane's two) it gives the whole spectrum.
#include <Kokkos_Core.hpp>

namespace meridian::direct_poisson {

enum class AxisKind { periodic, neumann_neumann, dirichlet_dirichlet, neumann_dirichlet, dirichlet_neumann, dirichlet_nodes };

// The length of Makhoul's FFT: the row's, twice it for the fourth kinds, 2 (n + 1) for the DST-I.
int fft_length(AxisKind kind, int n);
// FFTW's unnormalised inverse gives this times the row back.
double normalisation(AxisKind kind, int n);

// A stage's tables, one struct a stage: each kernel captures only its stage's, which keeps a plane kernel's
// arguments (both axes' tables) under the 512 bytes past which CUDA launches a kernel through constant memory,
// waiting for the previous such launch first.
struct SignedIndex {  // gather (q: its input slot) and scatter (p: its row value)
  Kokkos::View<int*> index;
  Kokkos::View<double*> sign;
};
struct PostTwiddle {  // forward output slot s
  Kokkos::View<int*> index;
  Kokkos::View<double*> twiddle;
};
struct PreWeights {  // backward spectrum value k, two terms
  Kokkos::View<int*> index;
  Kokkos::View<double*> weight;
};

struct MakhoulTables {
  int n = 0, m = 0;
  SignedIndex gather;
  PostTwiddle post;
  PreWeights pre;
  SignedIndex scatter;
};

MakhoulTables makhoul_tables(AxisKind kind, int n);

using Complex = Kokkos::complex<double>;

// Complex value k of a spectrum stored as interleaved (real, imaginary) doubles, value k at 2 at(k).
KOKKOS_INLINE_FUNCTION Complex complex_at(const double* spectrum, long at) { return {spectrum[2 * at], spectrum[2 * at + 1]}; }
KOKKOS_INLINE_FUNCTION Complex post_twiddle(const PostTwiddle& t, long s) { return {t.twiddle(2 * s), t.twiddle(2 * s + 1)}; }
// Term `which` (0: alpha_k C[a_k]; 1: beta_k C[b_k]) of the backward's V_k: its weight, and its index or -1.
KOKKOS_INLINE_FUNCTION Complex pre_weight(const PreWeights& t, long k, int which) {
  return {t.weight(4 * k + 2 * which), t.weight(4 * k + 2 * which + 1)};
}
KOKKOS_INLINE_FUNCTION int pre_index(const PreWeights& t, long k, int which) { return t.index(2 * k + which); }

}  // namespace meridian::direct_poisson
