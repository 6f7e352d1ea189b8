#!/usr/bin/env bash
# The device bundle made from this build passes the device check's
# preflight here, without a GPU: every library resolves inside the bundle
# (also with the system's copies hidden, where a private mount namespace
# can be made), the relocated Open MPI launches 2 ranks, and every command
# of the check gets as far as looking for the GPU.
#   device_preflight.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
# gzip: seconds to make, where xz takes half a minute (the archive is not kept).
"$src/scripts/device-bundle.sh" --build-dir "$build" --out "$work/bundle" --compress gzip >/dev/null
OUT="$work/out" TMPDIR="$work" "$src/scripts/device-check.sh" --preflight --bundle "$work/bundle/shardroof-device.tar.gz"
