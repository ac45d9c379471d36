#!/usr/bin/env bash
# Installs the Debian packages WaiHost builds and tests against (DESIGN.md "Dependencies").
# Idempotent: only missing packages are installed. Needs root (or sudo) on Debian 12.
set -euo pipefail

packages=(
  build-essential pkg-config   # C test plugins and the CPU kernels
  libssl-dev openssl           # SHA-256, Ed25519 (the openssl command checks receipt signatures in the tests)
  libsodium-dev                # Ed25519 signing, and verification where it gives OpenSSL's answer (docs/audit-bundle.md §2.2)
  curl                         # HTTP client the relay tests use as a plain (non-player) peer
  libpng-dev                   # PNG output of decoded pictures
  libvulkan-dev mesa-vulkan-drivers vulkan-tools glslang-tools spirv-tools libdrm-dev  # Vulkan backend; lavapipe is a real driver on the CPU
  opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd clinfo  # OpenCL backend: headers to build, the ICD loader it dlopens, PoCL as a real CPU driver, clinfo for the driver matrix
  libmicrohttpd-dev libcurl4-openssl-dev   # relay: loopback server, origin client
  libsqlite3-dev libpq-dev postgresql      # audit collector: SQLite store, PostgreSQL store (tests start their own server)
  python3-venv                             # tools/venv.sh: the converter tests' virtual environment (tools/requirements.txt from PyPI)
  python3-numpy python3-pytest             # bindings/python tests (scripts/test.sh runs them in Debian's python3)
  python3-cryptography                     # audit tests: the independent bundle verifier (Tests/AuditTests/verify_bundle.py)
  dpkg-dev binutils util-linux  # scripts/package-deb.sh (dpkg-shlibdeps), install.sh (readelf, strip), scripts/test-install.sh (unshare)
  ffmpeg gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav  # real players in the relay tests; the video tests use ffmpeg, y4mdec and checksumsink (plugins-bad)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present" >&2
fi

if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
  echo "install-deps: Swift 6 toolchain not found (expected on PATH or in /opt/swift); install it from swift.org" >&2
  exit 1
fi
