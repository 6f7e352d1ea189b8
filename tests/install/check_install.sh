#!/usr/bin/env bash
# check_install.sh CMAKE BUILD_DIR: installs BUILD_DIR into a temporary
# prefix and checks what landed there and that the installed program runs.
set -euo pipefail
cmake=$1 build=$2
prefix=$(mktemp -d -t shardroof-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAILED: $*" >&2; exit 1; }
for f in bin/shardroof share/shardroof/configs/default.toml share/shardroof/configs/hardware/h100.toml \
         share/shardroof/scripts/plot.py share/shardroof/scripts/plot_coll.py \
         share/shardroof/scripts/plot_link.py share/shardroof/scripts/matplotlib_python.py share/doc/shardroof/README.md \
         share/doc/shardroof/commands/sweep.md; do
  [[ -e "$prefix/$f" ]] || fail "$f was not installed"
done
[[ -x "$prefix/share/shardroof/scripts/plot.py" ]] || fail "plot.py is not executable"
version=$("$prefix/bin/shardroof" --version) || fail "the installed shardroof --version exited $?"
[[ "$version" == *shardroof* ]] || fail "unexpected --version output: $version"
# The installed program reads an installed hardware preset by path.
out=$("$prefix/bin/shardroof" predict --hw "$prefix/share/shardroof/configs/hardware/h100.toml") \
  || fail "the installed shardroof predict exited $?"
grep -q 'D\*' <<< "$out" || fail "predict printed no D*: $out"
echo "installed and ran from $prefix"
