// The Catch2 test runner's main (Catch2 v2, header-only).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
