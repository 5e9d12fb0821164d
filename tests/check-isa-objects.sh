#!/usr/bin/env bash
# Under clang the optimized backend's AVX2 REDUCE kernels are whole files compiled for AVX2
# (backends/optimized/kernels.h). A function such a file emits as a weak symbol that another file
# emits too could be the copy the linker keeps for everyone, and baseline code would then run AVX2
# instructions. This fails naming every such symbol.
# Usage: check-isa-objects.sh NM OBJECT...   (the files whose names contain "_avx2" are the AVX2 ones)
set -euo pipefail
nm=$1
shift
avx2=() others=()
for o in "$@"; do
  if [[ "$(basename "$o")" == *_avx2* ]]; then avx2+=("$o"); else others+=("$o"); fi
done
[ "${#avx2[@]}" -gt 0 ] || { echo "no AVX2 object among the arguments" >&2; exit 2; }
shared=$(comm -12 <("$nm" --defined-only "${avx2[@]}" | awk 'NF == 3 && $2 ~ /^[WVu]$/ {print $3}' | sort -u) \
                  <("$nm" --defined-only "${others[@]}" | awk 'NF == 3 {print $3}' | sort -u) |
         grep -v '^DW\.ref\.' || true)
if [ -n "$shared" ]; then
  echo "functions both an AVX2 kernel file and a baseline file emit (make them depend on the kernel set, or always inline):"
  echo "$shared" | c++filt
  exit 1
fi
echo "the ${#avx2[@]} AVX2 kernel files share no function with the other ${#others[@]} files"
