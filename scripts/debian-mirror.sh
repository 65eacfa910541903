# Sourced by scripts that fetch from Debian: sets `mirror` and `security` to the Debian archive and security
# archive apt uses on this machine (debian.sources, Debian 12's own file, else sources.list), unless
# HANDPOSE_DEBIAN_MIRROR and HANDPOSE_DEBIAN_SECURITY name others; deb.debian.org when apt names none.
mirror=${HANDPOSE_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
security=${HANDPOSE_DEBIAN_SECURITY:-$(awk '/^URIs:/ && $2 ~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
[ -n "$security" ] || security=$(awk '$1 == "deb" && $2 ~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
security=${security:-http://deb.debian.org/debian-security}
