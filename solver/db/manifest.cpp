#include "solver/db/manifest.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "solver/db/crc32c.hpp"
#include "solver/db/database.hpp"
#include "solver/db/format.hpp"

namespace kalah {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kKind = "kalah endgame database";
constexpr const char* kChecksumKey = "crc32c";

// The checksum covers the manifest's canonical form: the object without its checksum key,
// serialised compactly with the keys in sorted order (nlohmann::json's dump()), so that it
// does not depend on the file's layout.
std::uint32_t content_crc(json j) {
  j.erase(kChecksumKey);
  const std::string canonical = j.dump();
  return crc32c(canonical.data(), canonical.size());
}

[[noreturn]] void damaged(const fs::path& file, const std::string& problem) {
  throw DatabaseError(file.string() + ": damaged manifest (" + problem +
                      "); run kalah db build with the database's options to rewrite it");
}

}  // namespace

fs::path manifest_path(const fs::path& dir) { return dir / "manifest.json"; }

void write_manifest(const fs::path& dir, const DbManifest& m) {
  json j;
  j["kind"] = kKind;
  j["manifest_version"] = kManifestVersion;
  j["format_version"] = m.format_version;
  j["pits"] = m.pits;
  j["rules"] = {{"sowing", std::string(to_string(m.rules.sowing))},
                {"capture", std::string(to_string(m.rules.capture))},
                {"end", std::string(to_string(m.rules.end))},
                {"early_end", m.rules.early_end},
                {"pie", m.rules.pie}};
  j["max_seeds"] = m.max_seeds();
  j["target_max_seeds"] = std::max(m.target_max_seeds, m.max_seeds());
  json levels = json::array();
  for (const auto& l : m.levels) {
    json level = {{"level", l.level},
                  {"file", dbfile::level_path("", l.level).filename().string()},
                  {"bytes", l.bytes},
                  {"header_crc32c", l.header_crc}};
    if (!l.program.empty()) level["program"] = l.program;
    levels.push_back(std::move(level));
  }
  j["levels"] = std::move(levels);
  j[kChecksumKey] = content_crc(j);
  const std::string text = j.dump(2) + "\n";
  dbfile::write_file_atomically(
      manifest_path(dir),
      {std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(text.data()), text.size())});
}

std::optional<DbManifest> read_manifest(const fs::path& dir) {
  const fs::path file = manifest_path(dir);
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(file, ec);
  if (link.type() == fs::file_type::not_found) return std::nullopt;
  if (!fs::exists(fs::status(file, ec))) throw DatabaseError(file.string() + ": missing: a dangling symbolic link");
  if (!fs::is_regular_file(fs::status(file, ec))) throw DatabaseError(file.string() + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw DatabaseError(file.string() + ": cannot be read");
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    damaged(file, "not valid JSON at byte " + std::to_string(e.byte));
  }
  if (!j.is_object()) damaged(file, "not a JSON object");
  if (!j.contains(kChecksumKey) || !j[kChecksumKey].is_number_unsigned()) damaged(file, "no checksum");
  if (j[kChecksumKey].get<std::uint64_t>() != content_crc(j)) damaged(file, "checksum mismatch");
  DbManifest m;
  try {
    if (j.at("kind").get<std::string>() != kKind) damaged(file, "not a Kalah database manifest");
    const auto version = j.at("manifest_version").get<std::uint32_t>();
    if (version != kManifestVersion)
      throw DatabaseError(file.string() + ": manifest version " + std::to_string(version) +
                          ", this program reads version " + std::to_string(kManifestVersion));
    m.format_version = j.at("format_version").get<std::uint32_t>();
    m.pits = j.at("pits").get<int>();
    const json& r = j.at("rules");
    m.rules.sowing = parse_sowing(r.at("sowing").get<std::string>());
    m.rules.capture = parse_capture(r.at("capture").get<std::string>());
    m.rules.end = parse_end_rule(r.at("end").get<std::string>());
    m.rules.early_end = r.at("early_end").get<bool>();
    m.rules.pie = r.at("pie").get<bool>();
    const json& levels = j.at("levels");
    if (!levels.is_array() || levels.empty()) damaged(file, "no levels");
    for (const json& l : levels) {
      DbManifest::Level level;
      level.level = l.at("level").get<int>();
      level.bytes = l.at("bytes").get<std::uint64_t>();
      level.header_crc = l.at("header_crc32c").get<std::uint32_t>();
      if (l.contains("program")) level.program = l.at("program").get<std::string>();
      if (level.level != static_cast<int>(m.levels.size()) ||
          l.at("file").get<std::string>() != dbfile::level_path("", level.level).filename().string())
        damaged(file, "levels out of order");
      m.levels.push_back(level);
    }
    if (j.at("max_seeds").get<int>() != m.max_seeds()) damaged(file, "max_seeds disagrees with the levels");
    m.target_max_seeds = j.at("target_max_seeds").get<int>();
    if (m.target_max_seeds < m.max_seeds() || m.target_max_seeds > 127) damaged(file, "target_max_seeds out of range");
  } catch (const json::exception& e) {
    damaged(file, std::string("a field is missing or of the wrong type: ") + e.what());
  } catch (const std::invalid_argument& e) {
    damaged(file, e.what());
  }
  if (m.format_version != dbfile::kVersion && m.format_version != dbfile::kPackedVersion &&
      m.format_version != dbfile::kPairedVersion)
    throw DatabaseError(file.string() + ": describes level files of format version " +
                        std::to_string(m.format_version) + ", this program reads versions " +
                        std::to_string(dbfile::kVersion) + ", " + std::to_string(dbfile::kPackedVersion) + " and " +
                        std::to_string(dbfile::kPairedVersion));
  if (m.pits < 1 || m.pits > kMaxPits) damaged(file, "invalid pit count");
  return m;
}

}  // namespace kalah
