// The Catch2 v2 test runner's main (with Catch2 v3, Catch2::Catch2WithMain provides it and
// CMake leaves this file out).
#define CATCH_CONFIG_MAIN
#include "testing/catch.hpp"
