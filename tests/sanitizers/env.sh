# Sanitizer settings for running shardroof by hand from a
# -DSHARDROOF_SANITIZE=ON build (the tests get the same from CMake):
#   . tests/sanitizers/env.sh
# The options and why are in options.txt, next to this file.
_shardroof_san_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_shardroof_san_mpi=""
while IFS= read -r _shardroof_san_line; do
  case "$_shardroof_san_line" in
    '' | '#'*) continue ;;
    MPI_ASAN_OPTIONS=*) _shardroof_san_mpi=${_shardroof_san_line#MPI_ASAN_OPTIONS=} ;;
    MPI_FAST_ASAN_OPTIONS=*) ;;  # the tests' sample (options.txt); by hand, leaks are checked
    *) export "${_shardroof_san_line//@DIR@/$_shardroof_san_dir}" ;;
  esac
done <"$_shardroof_san_dir/options.txt"
# shardroof starts MPI: the options for processes that do.
ASAN_OPTIONS="$ASAN_OPTIONS:$_shardroof_san_mpi"
unset _shardroof_san_dir _shardroof_san_line _shardroof_san_mpi
