#!/usr/bin/env bash
# Installs the second WebGPU driver and the second WebGPU implementation the tests run on (docs/backends.md,
# "Testing on three WebGPU implementations"): Mesa 25's lavapipe Vulkan driver from Debian's bookworm-backports
# (Debian 12's own Mesa 22.3 is too old for Dawn), and Deno (wgpu, Firefox's WebGPU stack) from the npm registry
# into .cache/webgpu/deno. Debian 12, as root; safe to run again (it skips what is already there).
set -euo pipefail
cd "$(dirname "$0")/../.."

DENO_VERSION=2.9.6
LVP_ICD=/usr/share/vulkan/icd.d/lvp_icd.json
BACKPORTS=/etc/apt/sources.list.d/bookworm-backports.sources
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=600 -qq)
export DEBCONF_NOWARNINGS=yes

mesa_version() { dpkg-query -W -f '${Version}' mesa-vulkan-drivers 2>/dev/null || true; }

if [ ! -f "$LVP_ICD" ] || ! dpkg --compare-versions "$(mesa_version)" ge 25; then
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    cat >"$BACKPORTS" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  fi
  apt-get "${apt_opts[@]}" update
  apt-get "${apt_opts[@]}" install -y -t bookworm-backports mesa-vulkan-drivers >/dev/null
fi
echo "lavapipe: mesa-vulkan-drivers $(mesa_version), VK_ICD_FILENAMES=$LVP_ICD"

deno_dir=.cache/webgpu/deno
if [ "$("$deno_dir/deno" --version 2>/dev/null | head -n1 | cut -d' ' -f2)" != "$DENO_VERSION" ]; then
  rm -rf "$deno_dir" && mkdir -p "$deno_dir"
  tarball=$(cd "$deno_dir" && npm pack --silent "@deno/linux-x64-glibc@$DENO_VERSION")
  tar -xzf "$deno_dir/$tarball" -C "$deno_dir" --strip-components=1
  rm "$deno_dir/$tarball"
  chmod +x "$deno_dir/deno"
fi
echo "wgpu: $("$deno_dir/deno" --version | head -n1) at $deno_dir/deno"
