#!/usr/bin/env bash
# First run on a fresh machine: install what is missing, build (Release), and run the default
# deck on two ranks. Output lands in output/solid_body_rotation/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
deck=${1:-configs/advection/solid_body_rotation.toml}
mpirun -n 2 build/release/apps/meridian run "$deck"
echo "output written to output/$(basename "$deck" .toml)/ (fields_*.h5, fields.xmf for ParaView, diagnostics.h5, checkpoints/)"
