#pragma once
// Moist backgrounds. With water the dynamics' density is the whole air's, rho = rho_d + rho_v + rho_c, and its
// rho theta is rho theta_rho = rho_d theta_m (theta_rho = theta (1 + q_v R_v / R_d) / (1 + r_t), Emanuel 4.3.6),
// for which p = c0 (rho theta_rho)^gamma holds exactly with the dry gamma (WRF v4's approximation: the dry air's
// c_p / c_v and R_d / c_p in the Exner function). The discrete relation the z momentum uses is the dry one's,
// (p_face(k+1) - p_face(k)) / dz = -g rho_cell(k) with the whole density, and every cell of the saturated
// background is saturated at the discrete level, so the saturation adjustment leaves the resting state as it is.
#include "solvers/atmosphere/hydrostatic_background.hpp"
#include "solvers/atmosphere/moist_sounding.hpp"

namespace meridian::atmosphere {

// Bryan & Fritsch's saturated neutral state on cells first_cell .. first_cell + cells - 1 of height dz: face
// pressures, densities and rho theta_rho the sounding's; each cell's whole density from its faces' pressure
// difference, its rho theta_rho the 3-point Gauss average of the sounding's, and its vapour the saturated value
// for the cell's own pressure and dry density (rho_d = rho / (1 + r_t)), the rest of r_t cloud.
DiscreteBackground discretise_saturated(const moist::SaturatedSounding& sounding, double total_water, double dz,
                                        long first_cell, long cells);

// Vapour of mixing ratio q_v in every cell of a dry background whose density is read as the whole air's and
// whose theta as theta_rho (the resting state is then the dry one's, bit for bit).
void add_uniform_vapour(DiscreteBackground& background, double mixing_ratio);

}  // namespace meridian::atmosphere
