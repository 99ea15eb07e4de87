// solver/base/program_version.hpp — which program this is, for what it writes down: the
// version a database manifest and a job store record for the levels and runs they hold, and
// `kalah --version`. Generated at build time (cmake/program_version.cmake).
#pragma once

namespace kalah {

// The commit the source tree was at when it was built, 12 hex digits ("fb53ee4c1a2b"),
// "-dirty" appended when a tracked file outside results/ had changes, "unknown" outside a git
// checkout.
const char* program_version();
// The build type and compiler, e.g. "Release, GNU 12.2.0".
const char* program_build();

}  // namespace kalah
