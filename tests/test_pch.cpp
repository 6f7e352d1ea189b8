// Compiled only to build the precompiled header every test executable
// reuses (tests/CMakeLists.txt, shardroof_test_pch).
