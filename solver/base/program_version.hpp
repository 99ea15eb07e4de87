// solver/base/program_version.hpp — which program this is, for what it writes down: the
// version a database manifest and a job store record for the levels and runs they hold, and
// `kalah --version`. Generated at build time (cmake/program_version.cmake).
#pragma once

namespace kalah {

// `git describe --always --dirty --abbrev=12` of the source tree it was built from: the
// commit ("4243022c1a2b"), "-dirty" when the tree had changes, "unknown" outside git.
const char* program_version();
// The build type and compiler, e.g. "Release, GNU 12.2.0".
const char* program_build();

}  // namespace kalah
