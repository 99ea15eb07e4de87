// solver/db/manifest.hpp — the manifest of a database directory, "manifest.json": what a
// build produced, written (atomically) by `kalah db build` after each level it adds and once
// more at the end, so that it always lists exactly the complete levels on disk and the levels
// the build set out to make (a build that died part way is "incomplete", not a smaller
// database). It names the file format version, the pit count, the rules (the fields of the level
// header), the levels 0..S and, for each level file, its size and the CRC-32C of its header
// bytes 0..59 and the program that computed it (program_version(); absent in manifests
// written before it was recorded), and carries a CRC-32C of its own content. With it a reader can tell a missing top
// level (or a dangling link, or a replaced file) from a smaller database.
// docs/db-format.md describes the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/rules.hpp"

namespace kalah {

struct DbManifest {
  struct Level {
    int level = 0;
    std::uint64_t bytes = 0;       // file size
    std::uint32_t header_crc = 0;  // CRC-32C of the file's header bytes 0..59
    // The kalah that computed the level's values (a reused or converted level keeps its
    // builder's); empty: not recorded. A level finished from pair files an earlier build
    // left carries the finishing build's.
    std::string program;
  };
  std::uint32_t format_version = 0;  // the level files' format version
  int pits = 0;
  Rules rules;                // as in the level headers
  std::vector<Level> levels;  // levels[k] describes level k, k = 0..S
  int target_max_seeds = -1;  // the top level the build that wrote it set out to make
  int max_seeds() const { return static_cast<int>(levels.size()) - 1; }
  bool complete() const { return target_max_seeds <= max_seeds(); }
};

inline constexpr std::uint32_t kManifestVersion = 1;

// DIR/manifest.json
std::filesystem::path manifest_path(const std::filesystem::path& dir);

// Write the manifest of `dir` atomically (temporary file, fsync, rename, fsync of the
// directory). Throws DatabaseError on I/O failure.
void write_manifest(const std::filesystem::path& dir, const DbManifest& manifest);

// The manifest of `dir`, or nothing when the directory has none (a database built before
// manifests). Throws DatabaseError naming manifest.json when it cannot be read, is not valid
// JSON, fails its checksum, or its fields are missing or inconsistent.
std::optional<DbManifest> read_manifest(const std::filesystem::path& dir);

}  // namespace kalah
