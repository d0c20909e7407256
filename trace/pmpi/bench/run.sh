#!/bin/sh
# run.sh BENCH LIB: runs the tracer micro-benchmark (bench.c) on one rank
# without and with the tracer LIB preloaded and prints, per benchmark, the
# time per MPI call, the tracer's overhead per call and the trace bytes
# per call.
set -eu
bench=$1
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpirun=${MPIRUN:-mpirun -np 1}
printf '%-10s %12s %12s %12s %14s\n' benchmark plain_ns traced_ns overhead_ns trace_bytes
for b in send isend allreduce iprobe; do
	plain=$($mpirun "$bench" $b | awk '{print $2}')
	out=$(GOPSIM_TRACE_DIR="$dir/$b" LD_PRELOAD="$lib" $mpirun "$bench" $b)
	traced=$(echo "$out" | awk '{print $2}')
	calls=$(echo "$out" | awk '{print $3}')
	size=$(stat -c %s "$dir/$b/rank-000000.gpt")
	awk -v b=$b -v p="$plain" -v t="$traced" -v s="$size" -v c="$calls" \
		'BEGIN { printf "%-10s %12.1f %12.1f %12.1f %14.2f\n", b, p, t, t - p, s / c }'
done
echo "(ns per MPI call, best of 5 runs of the loop; trace_bytes: file size per call)"
