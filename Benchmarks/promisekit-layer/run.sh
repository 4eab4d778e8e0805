#!/usr/bin/env bash
# Instructions per call of VowPromiseKit's forms beside the Vow calls they map to
# (callgrind: the difference between 4,000 and 2,000 calls, halved, so start-up cancels).
#
#   Benchmarks/promisekit-layer/run.sh      builds the release library if needed
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/scripts/lib/vow-swift.sh"
bin=$(vow_release_bin "$root")
vow_swiftc_flags "$bin" "$root"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O "${VOW_SWIFTC_FLAGS[@]}" "$bin"/VowPromiseKit.build/*.o "$here/main.swift" -o "$out/bench"
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/bench" "$1" "$2" 2>&1 \
        | sed -n 's/.*Collected : *//p'
}
printf '%-16s %s\n' variant "instructions/call"
for variant in vow-map pmk-map guarantee-map vow-then pmk-then vow-finally pmk-ensure \
               vow-tap pmk-tap vow-catch pmk-catch; do
    a=$(count "$variant" 2000)
    b=$(count "$variant" 4000)
    printf '%-16s %d\n' "$variant" $(( (b - a) / 2000 ))
done
