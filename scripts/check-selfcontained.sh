#!/usr/bin/env bash
# Fails unless BINARY needs nothing but glibc 2.34: its NEEDED entries are among libc, libm, libgcc_s and
# the dynamic loader, and no symbol it takes from them has a version newer than GLIBC_2.34 (nor any
# GLIBCXX or CXXABI version: the C++ runtime is linked in). Prints what it found.
#   scripts/check-selfcontained.sh BINARY
set -euo pipefail
bin=$1
allowed="libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 libpthread.so.0 libdl.so.2 librt.so.1"
needed=$(readelf -d "$bin" | awk '/\(NEEDED\)/ {gsub(/[\[\]]/, "", $5); print $5}')
bad=0
for lib in $needed; do
  case " $allowed " in *" $lib "*) ;; *) echo "check-selfcontained: $bin needs $lib" >&2; bad=1 ;; esac
done
versions=$(objdump -T "$bin" | { grep -oE '\([A-Za-z]+_[A-Za-z0-9_.]+\)' || true; } | tr -d '()' | sort -u -V)
case " $(echo $versions) " in *" GLIBC_2."*) ;; *) echo "check-selfcontained: read no GLIBC_2.x version from $bin" >&2; exit 1 ;; esac
for v in $versions; do
  case $v in
    GLIBC_2.*) n=${v#GLIBC_}; [ "$(printf '%s\n' "$n" 2.34 | sort -V | tail -1)" = 2.34 ] || { echo "check-selfcontained: $bin needs $v:" \
      "$(objdump -T "$bin" | grep "($v)" | awk '{print $NF}' | tr '\n' ' ')" >&2; bad=1; } ;;
    GCC_*) ;;
    *) echo "check-selfcontained: $bin needs $v (a symbol version of a library other than glibc)" >&2; bad=1 ;;
  esac
done
echo "needed: $(echo $needed); symbol versions: $(echo $versions | tr ' ' '\n' | grep GLIBC_ | sort -V | tail -1) at most"
exit $bad
