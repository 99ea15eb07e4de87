#include "solver/db/crc32c.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace kalah {

namespace {

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int j = 0; j < 8; ++j) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = make_table();

// A linear map of the CRC register: column i is the image of bit i.
using Gf2Matrix = std::array<std::uint32_t, 32>;

std::uint32_t times(const Gf2Matrix& m, std::uint32_t v) {
  std::uint32_t r = 0;
  for (int i = 0; v; ++i, v >>= 1)
    if (v & 1) r ^= m[i];
  return r;
}

Gf2Matrix compose(const Gf2Matrix& after, const Gf2Matrix& before) {
  Gf2Matrix r;
  for (int i = 0; i < 32; ++i) r[i] = times(after, before[i]);
  return r;
}

// The register after 2^i zero bytes are fed to it (no pre- or post-inversion), i = 0..63,
// computed once: one zero bit shifts right and adds the polynomial when the bit shifted out
// was set; each power the square of the one before.
const std::array<Gf2Matrix, 64>& zero_powers() {
  static const std::array<Gf2Matrix, 64> powers = [] {
    std::array<Gf2Matrix, 64> p{};
    p[0][0] = 0x82F63B78u;  // one zero bit
    for (int i = 1; i < 32; ++i) p[0][i] = 1u << (i - 1);
    for (int i = 0; i < 3; ++i) p[0] = compose(p[0], p[0]);  // one zero byte
    for (int i = 1; i < 64; ++i) p[i] = compose(p[i - 1], p[i - 1]);
    return p;
  }();
  return powers;
}

// The register `crc` carried over `bytes` zero bytes: a matrix-vector product a set bit of
// `bytes` (a load joins hundreds of pieces; squaring matrices for each was 15% of a mapped
// load's CPU).
std::uint32_t over_zeros(std::uint32_t crc, std::uint64_t bytes) {
  const std::array<Gf2Matrix, 64>& powers = zero_powers();
  for (int i = 0; bytes; ++i, bytes >>= 1)
    if (bytes & 1) crc = times(powers[i], crc);
  return crc;
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
#if defined(__SSE4_2__)
  std::uint64_t c64 = c;
  // Three streams of kBlock bytes at once: the crc32 instruction's latency is three times its
  // throughput, so one dependent chain leaves two thirds of it idle. The streams' registers
  // are joined by carrying each over the next block's length of zero bytes.
  constexpr std::size_t kBlock = 8192;
  static_assert(std::has_single_bit(kBlock));  // carried by one of zero_powers()
  if (size >= 3 * kBlock) {
    const Gf2Matrix& over_block = zero_powers()[std::countr_zero(kBlock)];
    while (size >= 3 * kBlock) {
      std::uint64_t s1 = c64, s2 = 0, s3 = 0;
      for (std::size_t i = 0; i < kBlock; i += 8) {
        std::uint64_t w1, w2, w3;
        std::memcpy(&w1, p + i, 8);
        std::memcpy(&w2, p + kBlock + i, 8);
        std::memcpy(&w3, p + 2 * kBlock + i, 8);
        s1 = _mm_crc32_u64(s1, w1);
        s2 = _mm_crc32_u64(s2, w2);
        s3 = _mm_crc32_u64(s3, w3);
      }
      c64 = times(over_block, times(over_block, static_cast<std::uint32_t>(s1)) ^ static_cast<std::uint32_t>(s2)) ^
            static_cast<std::uint32_t>(s3);
      p += 3 * kBlock;
      size -= 3 * kBlock;
    }
  }
  while (size >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    c64 = _mm_crc32_u64(c64, w);
    p += 8;
    size -= 8;
  }
  c = static_cast<std::uint32_t>(c64);
#endif
  while (size--) c = kTable[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) {
  // With raw(s, M) the register after M from state s (linear in s and M) and crc(M) =
  // ~raw(~0, M): crc(A B) = raw(crc(A) as a state, B's zeros) ^ crc(B).
  return over_zeros(crc_a, length_b) ^ crc_b;
}

std::uint32_t crc32c_parallel(std::span<const std::span<const unsigned char>> parts, int threads, std::uint32_t crc,
                              std::size_t chunk) {
  if (chunk == 0) chunk = 1;
  struct Piece {
    const unsigned char* data;
    std::size_t size;
  };
  std::vector<Piece> pieces;
  for (const auto& part : parts)
    for (std::size_t at = 0; at < part.size(); at += chunk)
      pieces.push_back({part.data() + at, std::min(chunk, part.size() - at)});
  std::vector<std::uint32_t> crcs(pieces.size());
  if (threads <= 0) threads = omp_get_max_threads();
  const auto n = static_cast<std::int64_t>(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (n > 1 && threads > 1)
  for (std::int64_t i = 0; i < n; ++i) crcs[i] = crc32c(pieces[i].data, pieces[i].size);
  for (std::size_t i = 0; i < pieces.size(); ++i) crc = crc32c_combine(crc, crcs[i], pieces[i].size);
  return crc;
}

}  // namespace kalah
