# Sanitizer settings for running shardroof and its tests from a
# -DSHARDROOF_SANITIZE=ON build (sourced by .ci/run; tests/CMakeLists.txt
# passes the same settings to every MPI and CLI test):
#   . tests/sanitizers/env.sh
_shardroof_san_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# abort_on_error: a finding ends the rank at once (the job then ends too).
# detect_leaks=0: Open MPI loads its components with dlopen and unloads them
# in MPI_Finalize, so what they keep until exit is reported from "unknown
# modules" that no suppression can name; leak checking is therefore off for
# runs under MPI (lsan.supp covers what can be named, for runs that turn it
# on with LSAN_OPTIONS/ASAN_OPTIONS=detect_leaks=1).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=${_shardroof_san_dir}/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
unset _shardroof_san_dir
