// Included after SMPI's own prelude (smpicxx force-includes
// smpi/smpi_helpers.h) in the simulated build (SHARDROOF_SMPI). That prelude
// defines function-like macros over common C names (exit, free, malloc,
// sleep, getpid, clock_gettime, ...) so that C programs call SMPI's versions
// unchanged. In C++ they also rewrite members of that name in the libraries
// we include (CLI11's App::exit, for one) and fail to compile. The program
// does not rely on them: it asks SMPI for what it needs by name where it
// needs it (the simulated clock, shared buffers: the *_smpi.cpp files), so
// the macros are removed here.
#pragma once

#undef exit
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef getpid
#undef sleep
#undef usleep
#undef nanosleep
#undef clock_gettime
#undef gettimeofday
#undef getopt
#undef getopt_long
#undef getopt_long_only
