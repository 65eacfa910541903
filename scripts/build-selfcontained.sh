#!/usr/bin/env bash
# The self-contained handpose binary (docs/static-binary.md): the Swift runtime and Foundation, FFmpeg,
# libjpeg-turbo, libxml2, dav1d, x264 and zlib (scripts/build-static-deps.sh) and the C++ runtime linked in,
# so that it needs only glibc >= 2.34 (libc, libm, libgcc_s and the dynamic loader). It refuses to finish
# if the binary needs any other library or a newer symbol version. Puts the licence notices of what it
# links in .build-selfcontained/licenses. Prints the binary's path.
#   scripts/build-selfcontained.sh
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(scripts/build-static-deps.sh | tail -1)
scratch=.build-selfcontained
mkdir -p "$scratch/link"
# GCC's C++ runtime and atomics as archives, found before the shared ones (the Swift runtime links -lstdc++,
# FFmpeg's .pc files name -latomic).
for lib in libstdc++.a libatomic.a; do ln -sf "$(g++ -print-file-name=$lib)" "$scratch/link/$lib"; done
cc -O2 -fPIC -c scripts/glibc-compat.c -o "$scratch/link/glibc-compat.o"
bin=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/handpose
# SwiftPM does not see the linker's own inputs change (the object above, the archives, the prefix, the
# toolchain's static runtime, GCC's and glibc's static parts): when any differs from the last link's, link anew.
swift_static=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift_static
inputs=$( { echo "$prefix"; swift --version 2>&1; cc --version; find "$swift_static" -name '*.a' -printf '%p %s %T@\n' | sort
            sha256sum "$scratch/link/glibc-compat.o" "$prefix"/lib/*.a $(readlink -f "$scratch"/link/*.a) \
              "$(cc -print-libgcc-file-name)" "$(cc -print-file-name=libc_nonshared.a)"; } | sha256sum | cut -c1-16)
[ "$(cat "$scratch/link-inputs" 2>/dev/null)" = "$inputs" ] || rm -f "$bin" "$scratch/link-inputs"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig \
  swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product handpose \
  -Xlinker -L"$PWD/$scratch/link" -Xlinker -L"$prefix/lib" -Xlinker "$PWD/$scratch/link/glibc-compat.o" \
  -Xlinker --wrap=hypot -Xlinker --wrap=hypotf -Xlinker --wrap=arc4random >&2
scripts/check-selfcontained.sh "$bin" >&2
echo "$inputs" >"$scratch/link-inputs"
# The notices of what is linked in, from the very prefix linked (make install SELFCONTAINED=1 ships them).
rm -rf "$scratch/licenses" && mkdir -p "$scratch/licenses"
cp "$prefix"/licenses/* "$prefix/SOURCES" "$prefix/FFMPEG-COMPONENTS" /usr/share/common-licenses/Apache-2.0 \
  /usr/share/common-licenses/GPL-2 /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/LGPL-2.1 "$scratch/licenses/"
cp scripts/NOTICE-selfcontained.txt "$scratch/licenses/NOTICE"
echo "$bin"
