#!/usr/bin/env bash
# The C libraries the self-contained handpose links statically, each built here from Debian 12's source
# package (apt-get source, from the Debian mirror apt already uses; Debian's patches applied) into one
# prefix, so that the binary needs nothing of the system but glibc, libm and libgcc_s (docs/static-binary.md):
#   zlib, libjpeg-turbo (TurboJPEG), libxml2 (without ICU and lzma: FoundationXML's parser),
#   dav1d (AV1), x264 (H.264 encoding for render and the review page), and FFmpeg 5.1 with exactly the
#   demuxers, decoders, parsers, encoders and muxers handpose uses (the lists below; docs/static-binary.md).
# The result is kept in .build-static-deps/<key>/prefix, the key being this script and the source
# versions Debian serves now (a security update rebuilds); the last line printed is the prefix.
#   scripts/build-static-deps.sh
# Needs the build tools make setup installs (nasm, meson, ninja-build, cmake, autoconf, automake, libtool,
# dpkg-dev) and root (apt-get update of a private source list).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD/.build-static-deps
mkdir -p "$top"
log() { echo "static-deps: $*" >&2; }

# A private apt state holding only source indexes (the machine's own apt configuration is left alone):
# Debian 12 with its updates and security fixes, from the mirror apt uses (as scripts/runtime-root.sh).
. scripts/debian-mirror.sh
apt=$top/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
printf 'deb-src [signed-by=%s] %s main\n' "$keyring" "$mirror bookworm" "$keyring" "$mirror bookworm-updates" \
  "$keyring" "$security bookworm-security" >"$apt/sources.list"
aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt/lists"
         -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root -qq)
log "source indexes from $mirror and $security"
if ! apt-get "${aptopts[@]}" update >"$apt/update.log" 2>&1; then
  # Offline, or the mirror is down: the newest finished build, if there is one, rather than no binary at all.
  newest=$(ls -td "$top"/*/done 2>/dev/null | head -1)
  if [ -n "$newest" ]; then
    log "cannot reach $mirror (apt-get update failed); using the last build, $(dirname "$newest") ($(tr '\n' ' ' <"$(dirname "$newest")/prefix/SOURCES"))"
    echo "$(dirname "$newest")/prefix"; exit 0
  fi
  cat "$apt/update.log" >&2; exit 3
fi

packages=(zlib libjpeg-turbo libxml2 dav1d x264 ffmpeg)
versions=()
for p in "${packages[@]}"; do
  # The newest version by Debian's own ordering (dpkg --compare-versions), not sort -V's.
  v=""
  for candidate in $(apt-cache "${aptopts[@]}" showsrc "$p" | awk '/^Version:/ {print $2}'); do
    if [ -z "$v" ] || dpkg --compare-versions "$candidate" gt "$v"; then v=$candidate; fi
  done
  [ -n "$v" ] || { log "Debian serves no source package $p"; exit 3; }
  versions+=("$p=$v")
done
key=$(printf '%s\n' "${versions[@]}" | cat - "$0" | sha256sum | cut -c1-16)
out=$top/$key
if [ -f "$out/done" ]; then echo "$out/prefix"; exit 0; fi

rm -rf "$out"
mkdir -p "$out/src" "$out/prefix"
prefix=$out/prefix
jobs=$(nproc)
export CFLAGS="-O2 -fPIC" CXXFLAGS="-O2 -fPIC"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig

# Each source package as Debian ships it, its patches applied by dpkg-source.
fetch() {
  local p=$1 v=$2
  (cd "$out/src" && apt-get "${aptopts[@]}" source --download-only "$p=$v" >"$p.fetch.log" 2>&1) || { cat "$out/src/$p.fetch.log" >&2; exit 3; }
  local dsc
  dsc=$(ls "$out"/src/"${p}"_*.dsc | head -1)
  (cd "$out/src" && dpkg-source --no-check -x "$dsc" "$p" >"$p.unpack.log" 2>&1) || { cat "$out/src/$p.unpack.log" >&2; exit 3; }
}
built() { log "$1 built"; }
for pv in "${versions[@]}"; do
  log "fetching ${pv%%=*} ${pv#*=}"
  fetch "${pv%%=*}" "${pv#*=}"
done

cd "$out/src/zlib"
./configure --static --prefix="$prefix" >../zlib.log 2>&1 && make -j"$jobs" install >>../zlib.log 2>&1 || { tail -30 ../zlib.log >&2; exit 3; }
built zlib

cd "$out/src/libjpeg-turbo"
# (libjpeg-turbo reads a relative CMAKE_INSTALL_LIBDIR as relative to its source folder: give it whole)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR="$prefix/lib" \
  -DENABLE_SHARED=OFF -DENABLE_STATIC=ON -DWITH_TURBOJPEG=ON -DWITH_JAVA=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON >../jpeg.log 2>&1 &&
  ninja -C build install >>../jpeg.log 2>&1 || { tail -30 ../jpeg.log >&2; exit 3; }
[ -f "$prefix/lib/libturbojpeg.a" ] || { log "libjpeg-turbo installed no libturbojpeg.a"; exit 3; }
built libjpeg-turbo

cd "$out/src/libxml2"
# Debian patches Makefile.am; its own build reruns autoreconf too.
autoreconf -fi >../libxml2.log 2>&1 && ./configure --prefix="$prefix" --libdir="$prefix/lib" --disable-shared --enable-static --with-pic --without-python --without-icu \
  --without-lzma --without-http --without-ftp --without-debug --with-zlib="$prefix" >>../libxml2.log 2>&1 &&
  make -j"$jobs" install >>../libxml2.log 2>&1 || { tail -30 ../libxml2.log >&2; exit 3; }
built libxml2

cd "$out/src/dav1d"
meson setup build --prefix="$prefix" --libdir=lib --buildtype=release --default-library=static -Denable_tools=false \
  -Denable_tests=false -Db_staticpic=true >../dav1d.log 2>&1 && ninja -C build install >>../dav1d.log 2>&1 || { tail -30 ../dav1d.log >&2; exit 3; }
built dav1d

cd "$out/src/x264"
./configure --prefix="$prefix" --libdir="$prefix/lib" --enable-static --enable-pic --disable-cli --disable-opencl \
  --disable-lavf --disable-swscale --disable-ffms --disable-gpac --disable-lsmash --bit-depth=8 >../x264.log 2>&1 &&
  make -j"$jobs" install-lib-static >>../x264.log 2>&1 || { tail -30 ../x264.log >&2; exit 3; }
built x264

# FFmpeg: what handpose reads (MediaKind's clip and image extensions, the codecs README names), what it
# writes (render, synth, the review page's transcodes, PNG and JPEG frames), nothing else; no programs,
# no network, nothing found on this machine by itself (--disable-autodetect).
demuxers=mov,matroska,avi,gif,mpegps,mpegts,mpegvideo,asf,flv,h264,hevc,m4v,mjpeg,ivf,obu,image2,image_png_pipe,image_jpeg_pipe,image_bmp_pipe,image_webp_pipe,image_tiff_pipe,image_gif_pipe
decoders=h264,hevc,vp8,vp9,libdav1d,mpeg4,mpeg1video,mpeg2video,h263,h263p,msmpeg4v1,msmpeg4v2,msmpeg4v3,wmv1,wmv2,wmv3,vc1,flv,vp6f,mjpeg,prores,ffv1,rawvideo,theora,gif,png,bmp,tiff,webp,aac,mp3float,opus,vorbis,flac,ac3,pcm_s16le,pcm_s16be,pcm_u8,pcm_f32le
parsers=h264,hevc,vp8,vp9,av1,mpeg4video,mpegvideo,mjpeg,png,gif,bmp,webp,h263,vc1,aac,mpegaudio,opus,vorbis,flac,ac3
encoders=libx264,mpeg4,gif,png,mjpeg
muxers=mp4,mov,matroska,avi,gif
cd "$out/src/ffmpeg"
./configure --prefix="$prefix" --libdir="$prefix/lib" --pkg-config-flags=--static --enable-static --disable-shared --enable-pic \
  --disable-programs --disable-doc --disable-avdevice --disable-avfilter --disable-swresample --disable-postproc --disable-network \
  --disable-autodetect --disable-everything --enable-gpl --enable-zlib --enable-libdav1d --enable-libx264 \
  --enable-protocol=file,pipe --enable-demuxer=$demuxers --enable-decoder=$decoders --enable-parser=$parsers \
  --enable-encoder=$encoders --enable-muxer=$muxers --enable-bsfs >../ffmpeg.log 2>&1 &&
  make -j"$jobs" install >>../ffmpeg.log 2>&1 || { tail -40 ../ffmpeg.log >&2; exit 3; }
built ffmpeg

# SwiftPM reads a .pc file's Libs and not its Libs.private: a static archive's dependencies move into Libs.
for pc in "$prefix"/lib/pkgconfig/*.pc; do
  awk '/^Libs.private:/ {priv = substr($0, 15); next} {print} END {}' "$pc" >"$pc.tmp"
  private=$(awk '/^Libs.private:/ {print substr($0, 15)}' "$pc")
  sed -i "s|^Libs: \(.*\)$|Libs: \1 $private|" "$pc.tmp"
  mv "$pc.tmp" "$pc"
done
# What was built, from which Debian source packages: written into the wheel and the tarball.
printf '%s\n' "${versions[@]}" >"$prefix/SOURCES"
mkdir -p "$prefix/licenses"
for pv in "${versions[@]}"; do cp "$out/src/${pv%%=*}/debian/copyright" "$prefix/licenses/${pv%%=*}.copyright"; done
printf '%s\n' "demuxers: $demuxers" "decoders: $decoders" "parsers: $parsers" "encoders: $encoders" "muxers: $muxers" >"$prefix/FFMPEG-COMPONENTS"
rm -rf "$out/src"
touch "$out/done"
# Earlier builds (other versions or recipes) are not used again.
for d in "$top"/*/; do [ "${d%/}" = "$out" ] || [ "${d%/}" = "$apt" ] || rm -rf "$d"; done
echo "$prefix"
