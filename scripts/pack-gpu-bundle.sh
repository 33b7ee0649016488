#!/usr/bin/env bash
# Packs target/gpu-bundle (built by build-gpu-bundle.sh, with any kernel variants and peers) into
# target/gpu-bundle.tar.xz: about 41 MB against 59, so a call carries the bundle with its tests,
# variants and the tracked tree well under the 64 MiB (the JVM's libjvm.so and the PTX in the
# kernels jar compress well; jars and the jimage hardly). Unpacking it there takes about 2 s.
# Usage: scripts/pack-gpu-bundle.sh   then, with the run tool: carry ["target/gpu-bundle.tar.xz"],
#   command: mkdir -p /tmp/b && tar -xJf target/gpu-bundle.tar.xz -C /tmp/b && /tmp/b/gpu-bundle/gstm ...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -d target/gpu-bundle/lib ]] || { echo "pack-gpu-bundle: no bundle: run scripts/build-gpu-bundle.sh first" >&2; exit 2; }
tar -I 'xz -T0 -6' -cf target/gpu-bundle.tar.xz.tmp -C target gpu-bundle
mv target/gpu-bundle.tar.xz.tmp target/gpu-bundle.tar.xz
echo "pack-gpu-bundle: target/gpu-bundle.tar.xz ($(du -h target/gpu-bundle.tar.xz | cut -f1)); on the device:"
echo "  mkdir -p /tmp/b && tar -xJf target/gpu-bundle.tar.xz -C /tmp/b && /tmp/b/gpu-bundle/run-gpu-suite.sh"
