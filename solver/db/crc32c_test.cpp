// CRC-32C: the check value, continuing, combining two CRCs, and the chunked parallel CRC
// against the serial one for random cuts, chunk sizes and thread counts.
#include "testing/catch.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "solver/db/crc32c.hpp"

namespace kalah {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

// The definition, a bit at a time: the oracle for the word-wise, three-stream crc32c().
std::uint32_t bitwise_crc32c(const unsigned char* p, std::size_t n) {
  std::uint32_t c = ~0u;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int b = 0; b < 8; ++b) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

TEST_CASE("crc32c: the definition at lengths around its three-stream blocks", "[crc32c]") {
  const std::vector<unsigned char> bytes = random_bytes(3 * 3 * 8192 + 100, 4);
  for (std::size_t n :
       {std::size_t(0), std::size_t(5), std::size_t(8), std::size_t(3 * 8192 - 1), std::size_t(3 * 8192),
        std::size_t(3 * 8192 + 1), std::size_t(3 * 8192 + 13), std::size_t(6 * 8192 + 7), bytes.size()}) {
    INFO("length " << n);
    CHECK(crc32c(bytes.data(), n) == bitwise_crc32c(bytes.data(), n));
    // Continuing after an odd prefix: the blocks start unaligned.
    if (n > 3) CHECK(crc32c(bytes.data() + 3, n - 3, crc32c(bytes.data(), 3)) == bitwise_crc32c(bytes.data(), n));
  }
}

TEST_CASE("crc32c: the check value and continuing", "[crc32c]") {
  const char* digits = "123456789";
  CHECK(crc32c(digits, 9) == 0xE3069283u);
  CHECK(crc32c(digits + 4, 5, crc32c(digits, 4)) == 0xE3069283u);
  CHECK(crc32c(digits, 0) == 0u);
}

TEST_CASE("crc32c_combine: the CRC of a concatenation from its halves' CRCs", "[crc32c]") {
  const std::vector<unsigned char> bytes = random_bytes(5000, 1);
  for (std::size_t split : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(9),
                            std::size_t(1023), std::size_t(4999), std::size_t(5000)}) {
    const std::uint32_t a = crc32c(bytes.data(), split);
    const std::uint32_t b = crc32c(bytes.data() + split, bytes.size() - split);
    CHECK(crc32c_combine(a, b, bytes.size() - split) == crc32c(bytes.data(), bytes.size()));
  }
}

TEST_CASE("crc32c_parallel: the serial CRC of the parts in order, any chunk and thread count", "[crc32c]") {
  const std::vector<unsigned char> bytes = random_bytes(200003, 2);
  const std::uint32_t whole = crc32c(bytes.data(), bytes.size());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    // Cut the bytes into parts of random sizes (some empty).
    std::vector<std::span<const unsigned char>> parts;
    std::size_t at = 0;
    while (at < bytes.size()) {
      const std::size_t n = std::min<std::size_t>(bytes.size() - at, rng() % 3 == 0 ? 0 : rng() % 40000);
      parts.emplace_back(bytes.data() + at, n);
      at += n;
    }
    // Chunks from a byte to past three 8 KiB blocks (crc32c's streams and their remainder).
    const std::size_t chunk = trial % 2 ? std::size_t(1) << (rng() % 17) : 1 + rng() % 70000;
    const int threads = 1 + trial % 3;
    INFO("trial " << trial << ", " << parts.size() << " parts, chunk " << chunk << ", threads " << threads);
    CHECK(crc32c_parallel(parts, threads, 0, chunk) == whole);
    // Continuing from the CRC of a prefix.
    const std::uint32_t prefix = crc32c("kalah", 5);
    CHECK(crc32c_parallel(parts, threads, prefix, chunk) == crc32c(bytes.data(), bytes.size(), prefix));
  }
  CHECK(crc32c_parallel({}, 2) == 0u);
}

}  // namespace
}  // namespace kalah
