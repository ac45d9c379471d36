#!/usr/bin/env bash
# `make deb`: WaiHost as a Debian package (docs/configuration.md §5). Installs the static
# release build into a staging tree with PREFIX=/usr (scripts/install.sh), derives Depends
# from the libraries the ELF files link and those they load on first use (dpkg-shlibdeps), and builds
# OUT_DIR/waihost_VERSION_ARCH.deb with dpkg-deb. The Vulkan and OpenCL loaders, which the
# backends dlopen, are Recommends (dpkg-shlibdeps cannot see a dlopen).
# Usage: scripts/package-deb.sh [OUT_DIR]   (default .build/deb; WAIHOST_BIN_DIR as for install.sh)
#   DEB_COMPRESSION=xz (default, what Debian ships) | gzip | none: dpkg-deb's -Z; xz of the
#   ~250 MB tree takes minutes on a busy 2-core machine, gzip seconds (the tests use gzip).
# Prints the package's path on stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.build/deb}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

version="$(sed -n 's/^ *public static let string = "\([0-9][0-9.]*\)"$/\1/p' "$root/Sources/WaiRuntime/HostConfiguration.swift")"
[ -n "$version" ] || { echo "package-deb: cannot read WaiHostVersion.string from Sources/WaiRuntime/HostConfiguration.swift" >&2; exit 1; }
arch="$(dpkg --print-architecture)"
work="$(mktemp -d "$out/.stage.XXXXXX")"
trap 'rm -rf "$work"' EXIT
stage="$work/waihost"

DESTDIR="$stage" "$root/scripts/install.sh" /usr

# dpkg-shlibdeps reads a debian/control of the source package it works for.
mkdir -p "$work/src/debian"
printf 'Source: waihost\n\nPackage: waihost\nArchitecture: any\n' > "$work/src/debian/control"
mapfile -d '' elves < <(find "$stage" -type f \( -perm -u+x -o -name '*.so*' \) -print0)
# libcurl, libpq, libmicrohttpd and libsqlite3 are loaded on first use, not linked
# (docs/architecture.md, "Libraries loaded on first use"), so no installed file names them.
# An ELF file that is not installed links each soname a loader in Sources/C*/*.c names and
# refers to every function its table lists (read from the preprocessed source, so the list
# is the loader's own): dpkg-shlibdeps then gives them Depends versioned by the functions
# used, as it did when they were linked.
links=() refs=()
for src in "$root"/Sources/C*/*.c; do
  soname="$(sed -n 's/^WAIH_LAZY_LIBRARY("\([^"]*\)".*/\1/p' "$src")"
  [ -n "$soname" ] || continue
  links+=("-l:$soname")
  mapfile -t names < <(cc -E -I"$root/Sources/CLazyLibrary/include" -I"$(dirname "$src")/include" "$src" |
    tr '\n' ' ' | grep -o 'waih_library_symbols\[\] = {[^}]*}' | grep -o '"[A-Za-z0-9_]*"' | tr -d '"')
  [ "${#names[@]}" -gt 0 ] || { echo "package-deb: no function table found in $src" >&2; exit 1; }
  refs+=("${names[@]}")
done
[ "${#links[@]}" -gt 0 ] || { echo "package-deb: no library loaded on first use found in Sources/C*/*.c" >&2; exit 1; }
{
  for f in "${refs[@]}"; do printf 'extern void %s(void);\n' "$f"; done
  printf 'void *waihost_lazy_dependencies[] = {\n'
  for f in "${refs[@]}"; do printf '    (void *)&%s,\n' "$f"; done
  printf '};\n'
} > "$work/lazy-dependencies.c"
cc -shared -fPIC -o "$work/lazy-dependencies.so" "$work/lazy-dependencies.c" -Wl,--no-as-needed -Wl,--no-undefined "${links[@]}"
shlibs="$(cd "$work/src" && dpkg-shlibdeps -O -xwaihost -l"$stage/usr/lib" "${elves[@]}" "$work/lazy-dependencies.so" 2>"$work/shlibdeps.err")" || {
  cat "$work/shlibdeps.err" >&2
  exit 1
}
depends="$(sed -n 's/^shlibs:Depends=//p' <<<"$shlibs")"
[ -n "$depends" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies: $shlibs" >&2; exit 1; }

size_kb="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
install -d "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOF
Package: waihost
Version: $version
Architecture: $arch
Maintainer: WaiHost developers <waihost@localhost>
Section: libs
Priority: optional
Installed-Size: $size_kb
Depends: $depends
Recommends: libvulkan1, ocl-icd-libopencl1
Suggests: mesa-vulkan-drivers, pocl-opencl-icd
Homepage: file:///usr/share/doc/waihost/README.md
Description: deterministic neural media decoding host (CLI, libwaihost, backends)
 WaiHost loads decode backends (CPU SIMD, Vulkan, OpenCL) as plugins, refuses
 every unit that does not reproduce its reference interpreter bit for bit,
 ranks the rest by measured speed and reports which unit decoded and why.
 This package holds the waihost command, libwaihost (C API, pkg-config
 waihost), the backend ABI header (pkg-config waihost-backend), the three
 backends, the collector's systemd unit and the specifications.
EOF
# libwaihost.so.1 for programs packaged against it; ldconfig after install and removal.
echo "libwaihost 1 waihost (>= $version)" > "$stage/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$stage/DEBIAN/triggers"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z | xargs -0 md5sum | sed 's| \./| |' > DEBIAN/md5sums)
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/shlibs" "$stage/DEBIAN/triggers" "$stage/DEBIAN/md5sums"

deb="$out/waihost_${version}_${arch}.deb"
compression="${DEB_COMPRESSION:-xz}"
case "$compression" in
  xz|gzip|none) ;;
  *) echo "package-deb: DEB_COMPRESSION=$compression: use xz, gzip or none" >&2; exit 2 ;;
esac
level=()
[ "$compression" != gzip ] || level=(-z1)
dpkg-deb --root-owner-group -Z"$compression" "${level[@]}" --build "$stage" "$deb" >&2
echo "package-deb: $deb (Installed-Size $size_kb KiB; Depends: $depends)" >&2
printf '%s\n' "$deb"
