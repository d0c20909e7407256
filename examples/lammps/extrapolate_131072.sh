#!/bin/sh
# Measures gopsim extrapolate on LAMMPS: a 64-rank trace of in.lj (20
# steps) extrapolated to 131,072 ranks, converted and simulated, with the
# wall time and peak RSS of each step (GNU time). Not part of make test:
# it takes minutes and several GB. Usage, from the repository root after
# make build tracer (and make mpi-deps for lmp):
#
#	sh examples/lammps/extrapolate_131072.sh [WORKDIR] [STEPS]
#
# docs/extrapolate.md reports the numbers it gave.
set -eu
root=$(pwd)
work=${1:-/tmp/gopsim-lammps-131072}
steps=${2:-20}
mkdir -p "$work"
sed "s/^run .*/run $steps/" examples/lammps/in.lj >"$work/in.lj"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
rm -rf "$work/trace"
(cd "$work" && "$root/bin/gopsim" trace --lib "$root/bin/libgopsim-pmpi.so" -o trace -- \
	mpirun -np 64 --oversubscribe lmp -in in.lj -log none -nocite >lammps.txt 2>&1)
/usr/bin/time -v "$root/bin/gopsim" extrapolate --factor 2048 "$work/trace" "$work/lammps-131072.bin" 2>&1 | tee "$work/extrapolate.txt"
# The program needs about 27 GB in memory: below that, --stream auto (the
# default) streams it from a spill file in $work (4.1 GB), within 2.7 GiB.
/usr/bin/time -v "$root/bin/gopsim" sim --quiet --spill-dir "$work" "$work/lammps-131072.bin" 2>&1 | tee "$work/sim.txt"
grep -E 'Elapsed|Maximum resident' "$work/extrapolate.txt" "$work/sim.txt"
