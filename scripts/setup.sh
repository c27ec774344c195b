#!/usr/bin/env bash
# Installs the Debian packages Meridian needs that are missing. As root it runs apt-get;
# otherwise it prints the apt-get line to run and fails. libquantlib0-dev is only for the Monte Carlo
# benchmark's QuantLib comparison (bench/quantlib_asian); curl is what scripts/cloud/spot_run.sh asks the
# clouds' metadata services with.
set -euo pipefail

packages=(build-essential cmake mpich libmpich-dev libhdf5-mpich-dev hdf5-tools libtrilinos-kokkos-dev
          libfftw3-dev libtoml11-dev libgtest-dev clang python3-h5py python3-numpy python3-matplotlib
          libquantlib0-dev python3-xarray python3-netcdf4 cdo netcdf-bin curl)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Meridian needs these Debian packages; run as root:" >&2
  echo "  apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || echo "apt-get update failed; trying the package lists already here" >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}"
