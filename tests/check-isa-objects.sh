#!/usr/bin/env bash
# Under clang the optimized backend's AVX2 and AVX-512 REDUCE kernels are whole files compiled for
# their instruction set (backends/optimized/kernels.h). A function such a file emits as a weak
# symbol that a file of another instruction set emits too could be the copy the linker keeps for
# everyone, and baseline (or AVX2) code would then run AVX2 (or AVX-512) instructions. This fails
# naming every such symbol.
# Usage: check-isa-objects.sh NM OBJECT...   (files whose names contain "_avx2" or "_avx512" are
# compiled for that instruction set, the others for the baseline)
set -euo pipefail
nm=$1
shift
isa_of() {
  case "$(basename "$1")" in
    *_avx512*) echo avx512 ;;
    *_avx2*) echo avx2 ;;
    *) echo baseline ;;
  esac
}
status=0
for isa in avx2 avx512; do
  mine=() others=()
  for o in "$@"; do
    if [ "$(isa_of "$o")" = "$isa" ]; then mine+=("$o"); else others+=("$o"); fi
  done
  # Both sets have files (backends/CMakeLists.txt); one with none means they were renamed.
  [ "${#mine[@]}" -gt 0 ] || { echo "no ${isa} object among the arguments" >&2; exit 2; }
  shared=$(comm -12 <("$nm" --defined-only "${mine[@]}" | awk 'NF == 3 && $2 ~ /^[WVu]$/ {print $3}' | sort -u) \
                    <("$nm" --defined-only "${others[@]}" | awk 'NF == 3 {print $3}' | sort -u) |
           grep -v '^DW\.ref\.' || true)
  if [ -n "$shared" ]; then
    echo "functions both an ${isa} kernel file and a file of another instruction set emit (make them depend on the kernel set, or always inline):"
    echo "$shared" | c++filt
    status=1
  else
    echo "the ${#mine[@]} ${isa} kernel files share no function with the other ${#others[@]} files"
  fi
done
exit "$status"
