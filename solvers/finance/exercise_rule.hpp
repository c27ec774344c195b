#pragma once
// Early exercise at Bermudan dates by the rule of Longstaff & Schwartz (2001): at each date before maturity a path
// in the money exercises where the exercise value is at least the continuation value, which is a least-squares
// fit (longstaff_schwartz.hpp) of the discounted future cash flows on a basis of the prices at that date. Plain
// data copied into kernels, as the models are; the same rule on the calibration paths and the pricing paths.
#include <Kokkos_Core.hpp>

#include "solvers/common/kokkos_math.hpp"
#include "solvers/finance/models.hpp"

namespace meridian::finance {

enum class Basis { monomial, laguerre, hermite };
enum class ExerciseKind { put, call, max_call };

inline constexpr int max_basis_order = 8;
// Functions of the basis at most: the normal equations' sums per path are (n + 1)(n + 2) / 2, kept in a kernel's
// local memory.
inline constexpr int max_basis_functions = 24;
inline constexpr int max_normal_sums = (max_basis_functions + 1) * (max_basis_functions + 2) / 2;
// Rules priced together on the same paths: the Bermudans with N, 2N and 4N dates a year whose Richardson
// extrapolation is the American price (finance.exercise_extrapolation).
inline constexpr int max_exercise_levels = 3;

struct ExerciseRule {
  ExerciseKind kind = ExerciseKind::put;
  Basis basis = Basis::monomial;
  int order = 3, assets = 1;
  double strike = 100;
  int dates = 0;  // exercise dates, maturity the last
  Kokkos::View<const int*> date_at_step;  // per path step, the exercise date at its end (0 .. dates - 1), or -1
  // Per function, the degree of its polynomial in each asset's S / K (a product over the assets); with several
  // assets one more function, the exercise value / K.
  Kokkos::View<const int**, Kokkos::LayoutRight> degrees;
  Kokkos::View<const double**, Kokkos::LayoutRight> coefficients;  // (date, function), dates before maturity

  KOKKOS_INLINE_FUNCTION int functions() const {
    return static_cast<int>(degrees.extent(0)) + (assets > 1 ? 1 : 0);
  }
  KOKKOS_INLINE_FUNCTION double value(const double* price) const {
    double level = price[0];
    if (kind == ExerciseKind::max_call)
      for (int a = 1; a < assets; ++a) level = max_of(level, price[a]);
    return value_of_level(level);
  }
  // The exercise value where the price that matters (asset 0's, or the largest) is `level`.
  KOKKOS_INLINE_FUNCTION double value_of_level(double level) const {
    const double payoff = kind == ExerciseKind::put ? strike - level : level - strike;
    return payoff > 0 ? payoff : 0.0;
  }
  // The basis at prices `price` whose exercise value is `payoff`, into phi[0 .. functions()).
  KOKKOS_INLINE_FUNCTION void basis_values(const double* price, double payoff, double* phi) const {
    double poly[max_assets][max_basis_order + 1];
    for (int a = 0; a < assets; ++a) polynomials(price[a] / strike, poly[a]);
    const int products = static_cast<int>(degrees.extent(0));
    for (int f = 0; f < products; ++f) {
      double v = 1;
      for (int a = 0; a < assets; ++a) v *= poly[a][degrees(f, a)];
      phi[f] = v;
    }
    if (assets > 1) phi[products] = payoff / strike;
  }
  KOKKOS_INLINE_FUNCTION double continuation(int date, const double* phi) const {
    double sum = 0;
    for (int f = 0; f < functions(); ++f) sum += coefficients(date, f) * phi[f];
    return sum;
  }

  // The family's polynomials by the three-term recurrence q_j = (a_j + b_j x) q_{j-1} - c_j q_{j-2} from q_0 = 1 and
  // q_{-1} = 0: monomials x^j; the probabilists' Hermite He_j; Laguerre L_j. The basis' function k is q_k, but for
  // Laguerre, as Longstaff & Schwartz, a constant and exp(-x/2) L_{k-1}(x).
  KOKKOS_INLINE_FUNCTION void recurrence(int j, double& a, double& b, double& c) const {
    if (basis == Basis::laguerre) {
      a = (2.0 * j - 1) / j, b = -1.0 / j, c = (j - 1.0) / j;
    } else {
      a = 0, b = 1, c = basis == Basis::hermite ? j - 1.0 : 0.0;
    }
  }

 private:
  // The basis' functions of one asset, degrees 0 .. order, at x = S / K.
  KOKKOS_INLINE_FUNCTION void polynomials(double x, double* p) const {
    const bool laguerre = basis == Basis::laguerre;
    const double weight = laguerre ? km::exp(-0.5 * x) : 1.0;
    double before = 0, q = 1;  // q_{j-1}, q_j from j = 0
    p[0] = 1;
    for (int k = 1; k <= order; ++k) {
      if (laguerre) p[k] = weight * q;
      double a, b, c;
      recurrence(k, a, b, c);
      const double next = (a + b * x) * q - c * before;
      before = q, q = next;
      if (!laguerre) p[k] = q;
    }
  }
};

}  // namespace meridian::finance
