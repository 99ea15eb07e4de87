// testing/catch.hpp — include Catch2 whichever major version CMake found: Debian 12
// ships Catch2 v2 (single header), later releases v3 (separate headers, own main).
#pragma once

#ifdef KALAH_CATCH2_V3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
