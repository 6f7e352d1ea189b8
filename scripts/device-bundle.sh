#!/usr/bin/env bash
# Packs what a bare CUDA machine lacks to run shardroof's GPU check into one
# archive, built here so that nothing is built there:
#   bin/      shardroof and the GPU test binaries, with sm_90 (Hopper) code, stripped
#   lib/      every shared library they, Open MPI's launcher and its plug-ins
#             load (OpenBLAS, Open MPI, PMIx, hwloc, libevent, fmt, the CUDA
#             runtime, ...), found with ldd; not glibc, and not the driver,
#             cuBLAS or NCCL, which come with the GPU machine's CUDA
#   openmpi/  Open MPI's own tree under its prefix, laid out as `ompi_info
#             --path` says: orterun (mpirun), orted, ompi_info, the MCA
#             plug-ins, help files and the parameter file; relocated there
#             with OPAL_PREFIX (scripts/device-check.sh does that)
#   pmix/     the external PMIx's plug-ins and help files, where Open MPI uses one
#   MANIFEST.txt  what was packed, from where, and which plug-ins were left out
# Open MPI's plug-ins for fabrics (UCX, libfabric, PSM, verbs, ...) stay
# behind: the check runs its ranks on one machine over shared memory and
# TCP, and those would need the fabric's libraries and drivers there.
#
#   scripts/device-bundle.sh [--build-dir DIR] [--out DIR] [--compress xz|gzip] [--keep-stage]
#
# --build-dir DIR  take the binaries of an existing Release CUDA build that
#                  holds sm_90 code (the default CMAKE_CUDA_ARCHITECTURES "80 90"
#                  does, so CI's build does), brought up to date first; without
#                  it, build-sm90/ is configured for sm_90 only and built
# --out DIR        where the archive goes (default device-bundle/, git-ignored)
# --compress       xz (default; smallest) or gzip (faster to make)
# --keep-stage     keep the unpacked tree next to the archive
# Environment: JOBS (build jobs, default: cores).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
BUILD_DIR=""
OUT_DIR=device-bundle
COMPRESS=xz
KEEP_STAGE=0
# The archive must travel with a working tree to a machine that accepts
# 64 MiB in all; it is meant to stay well under this.
MAX_BYTES=$((60 * 1024 * 1024))

usage() { sed -n '/^#   scripts/,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "device-bundle: ERROR: $*" >&2; exit 1; }
say() { echo "device-bundle: $*" >&2; }

while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) BUILD_DIR=${2:?--build-dir needs a folder}; shift 2 ;;
    --out) OUT_DIR=${2:?--out needs a folder}; shift 2 ;;
    --compress) COMPRESS=${2:?--compress needs xz or gzip}; shift 2 ;;
    --keep-stage) KEEP_STAGE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
case $COMPRESS in xz|gzip) ;; *) die "--compress: '$COMPRESS' is not xz or gzip" ;; esac
for tool in ldd strip tar "$COMPRESS" ompi_info; do
  command -v "$tool" >/dev/null || die "'$tool' is needed and not found"
done
JOBS=${JOBS:-$(nproc)}
start_s=$(date +%s)

# ---- the build -------------------------------------------------------------
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt"; }
if [ -z "$BUILD_DIR" ]; then
  BUILD_DIR=build-sm90
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  say "configuring $BUILD_DIR for sm_90"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSHARDROOF_WITH_CUDA=ON -DSHARDROOF_WITH_NCCL=ON "${launcher[@]}" >/dev/null
fi
[ -f "$BUILD_DIR/CMakeCache.txt" ] || die "$BUILD_DIR is not a CMake build"
[ "$(cache_value SHARDROOF_WITH_CUDA)" = ON ] || die "$BUILD_DIR was built without CUDA"
[ "$(cache_value SHARDROOF_WITH_NCCL)" = ON ] || die "$BUILD_DIR was built without NCCL"
[ "$(cache_value CMAKE_BUILD_TYPE)" = Release ] || die "$BUILD_DIR is not a Release build"
say "building shardroof and the GPU tests in $BUILD_DIR"
cmake --build "$BUILD_DIR" -j "$JOBS" --target shardroof gpu_tests gpu_sweep_overlap >/dev/null
# Which GPU code the build holds: read off the binary where the toolkit has
# cuobjdump, else off the nvcc flags of the build (-gencode ...,code=[sm_NN]).
cuobjdump=$(command -v cuobjdump || echo "$(dirname "$(cache_value CMAKE_CUDA_COMPILER)")/cuobjdump")
if [ -x "$cuobjdump" ]; then
  archs=$("$cuobjdump" --list-elf "$BUILD_DIR/src/shardroof" | grep -o 'sm_[0-9a-z]*' | sort -u | tr '\n' ' ')
else
  archs=$(grep -rhoE 'code=\[[^]]*\]' "$BUILD_DIR" --include=flags.make --include=build.ninja |
          grep -o 'sm_[0-9a-z]*' | sort -u | tr '\n' ' ')
fi
[[ " $archs" == *" sm_90 "* ]] ||
  die "$BUILD_DIR/src/shardroof holds no sm_90 code (it has: ${archs:-none}); give a build with 90 in CMAKE_CUDA_ARCHITECTURES"

# ---- the tree --------------------------------------------------------------
stage_root="$OUT_DIR/stage"
stage="$stage_root/shardroof-device"
rm -rf "$stage_root"
mkdir -p "$stage/bin" "$stage/lib"
manifest="$stage/MANIFEST.txt"
{
  echo "shardroof device bundle"
  echo "made:    $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"'))"
  echo "source:  $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "build:   $BUILD_DIR (Release; GPU code: $archs)"
} >"$manifest"

for exe in src/shardroof tests/gpu/gpu_tests tests/gpu/gpu_sweep_overlap; do
  [ -x "$BUILD_DIR/$exe" ] || die "$BUILD_DIR/$exe was not built"
  cp "$BUILD_DIR/$exe" "$stage/bin/"
  strip --strip-unneeded "$stage/bin/$(basename "$exe")"
done

# Open MPI's layout, from Open MPI itself.
ompi_path() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1://p"; }
ompi_prefix=$(ompi_path prefix)
below_prefix() {
  case $1 in "$ompi_prefix"/*) echo "${1#"$ompi_prefix"/}" ;; *) return 1 ;; esac
}
ompi_bindir=$(ompi_path bindir)
ompi_pkglibdir=$(ompi_path pkglibdir)
ompi_pkgdatadir=$(ompi_path pkgdatadir)
ompi_sysconfdir=$(ompi_path sysconfdir)
rel_bindir=$(below_prefix "$ompi_bindir") || die "Open MPI's bindir $ompi_bindir is not below its prefix $ompi_prefix"
[ "$rel_bindir" = bin ] || die "Open MPI's bindir is $ompi_bindir, not <prefix>/bin as scripts/device-check.sh expects"
rel_pkglibdir=$(below_prefix "$ompi_pkglibdir") || die "Open MPI's pkglibdir is not below its prefix"
rel_pkgdatadir=$(below_prefix "$ompi_pkgdatadir") || die "Open MPI's pkgdatadir is not below its prefix"
ompi="$stage/openmpi"
mkdir -p "$ompi/$rel_bindir" "$ompi/$rel_pkglibdir" "$ompi/$rel_pkgdatadir" "$ompi/etc/openmpi"
# Debian's mpirun is an update-alternatives link to orterun; the check
# makes its own mpirun link next to it.
for tool in orterun orted ompi_info; do
  [ -x "$ompi_bindir/$tool" ] || die "no $ompi_bindir/$tool (is this Open MPI 4?)"
  cp -L "$ompi_bindir/$tool" "$ompi/$rel_bindir/"
done
cp -rL "$ompi_pkgdatadir/." "$ompi/$rel_pkgdatadir/"
cp -L "$ompi_sysconfdir"/*.conf "$ompi/etc/openmpi/" 2>/dev/null || true
{
  echo "Open MPI $(ompi_info --parsable | sed -n 's/^ompi:version:full://p') from $ompi_prefix"
  echo "  relocate with OPAL_PREFIX=<bundle>/openmpi OPAL_SYSCONFDIR=<bundle>/openmpi/etc/openmpi"
  echo "  bindir $rel_bindir, plug-ins $rel_pkglibdir, help files $rel_pkgdatadir"
} >>"$manifest"

# Plug-ins needing a fabric's libraries stay behind (see the top).
fabric_libs='lib(ucp|uct|ucs|ucm|fabric|psm2|psm_infinipath|infinipath|ibverbs|rdmacm|efa|nl-3|nl-route-3|oshmem|mca_common_(ucx|ofi|verbs))\.so'
left_out=()
copy_plugins() {  # copy_plugins FROM TO
  local f deps
  for f in "$1"/*.so; do
    [ -e "$f" ] || continue
    deps=$(ldd "$f")
    if [[ $deps =~ $fabric_libs|"not found" ]]; then
      left_out+=("$(basename "$f")")
    else
      cp -L "$f" "$2/"
    fi
  done
}
copy_plugins "$ompi_pkglibdir" "$ompi/$rel_pkglibdir"

# An external PMIx (Debian's Open MPI 4 uses one): its prefix holds lib/pmix
# (plug-ins) and share/pmix (help files).
pmix_lib=$(ldd "$ompi_pkglibdir"/mca_pmix_*.so 2>/dev/null | awk '/libpmix\.so/ && !p { print $3; p = 1 }')
if [ -n "$pmix_lib" ]; then
  pmix_prefix=$(dirname "$(dirname "$(readlink -f "$pmix_lib")")")
  if [ -d "$pmix_prefix/lib/pmix" ]; then
    mkdir -p "$stage/pmix/lib/pmix" "$stage/pmix/share"
    copy_plugins "$pmix_prefix/lib/pmix" "$stage/pmix/lib/pmix"
    [ -d "$pmix_prefix/share/pmix" ] && cp -rL "$pmix_prefix/share/pmix" "$stage/pmix/share/"
    echo "PMIx from $pmix_prefix: plug-ins lib/pmix, help files share/pmix" >>"$manifest"
  fi
fi
echo "plug-ins left out (fabrics): ${left_out[*]:-none}" >>"$manifest"

# Every shared library the carried programs and plug-ins load, except
# glibc's, the driver's, cuBLAS and NCCL (from the GPU machine's CUDA).
from_the_gpu_machine='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libcuda|libcublas|libcublasLt|libnccl)\.so'
missing=()
while IFS= read -r elf; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    [[ $name =~ $from_the_gpu_machine ]] && continue
    if [ "$path" = "not" ]; then missing+=("$name (for $elf)"); continue; fi
    [ -e "$stage/lib/$name" ] || cp -L "$path" "$stage/lib/$name"
  done < <(ldd "$elf")
done < <(find "$stage/bin" "$ompi/$rel_bindir" "$stage/openmpi/$rel_pkglibdir" "$stage/pmix" -type f \
           \( -perm -u+x -o -name '*.so' \) 2>/dev/null | sort)
[ ${#missing[@]} -eq 0 ] || die "libraries not found here: ${missing[*]}"

{
  echo "libraries (lib/):"
  for f in "$stage"/lib/*; do
    echo "  $(basename "$f")  $(du -k "$f" | cut -f1) KiB"
  done
  echo "from the GPU machine: glibc, libcuda (driver), libcublas, libcublasLt, libnccl"
} >>"$manifest"

# ---- the archive -----------------------------------------------------------
case $COMPRESS in
  xz) archive="$OUT_DIR/shardroof-device.tar.xz"; squeeze=(xz -T0 -9) ;;
  gzip) archive="$OUT_DIR/shardroof-device.tar.gz"; squeeze=(gzip -6) ;;
esac
rm -f "$OUT_DIR"/shardroof-device.tar.*
tar -C "$stage_root" -cf - shardroof-device | "${squeeze[@]}" >"$archive"
bytes=$(stat -c %s "$archive")
unpacked=$(du -sk "$stage" | cut -f1)
[ "$KEEP_STAGE" = 1 ] || rm -rf "$stage_root"
[ "$bytes" -le "$MAX_BYTES" ] || die "$archive is $((bytes / 1048576)) MiB, over the $((MAX_BYTES / 1048576)) MiB limit"
say "$archive: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }') ($((unpacked / 1024)) MiB unpacked) in $(( $(date +%s) - start_s )) s"
echo "$archive"
