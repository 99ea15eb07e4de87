// solver/db/crc32c.hpp — CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78,
// initial value and final xor 0xFFFFFFFF), the checksum of the database files. The same
// function as iSCSI's and ext4's; crc32c("123456789") = 0xE3069283.
//
// A long byte string is checked in chunks on several threads: the CRC of a concatenation A B
// is the CRC of A carried over |B| zero bytes (a linear map of the 32-bit register, a 32 x 32
// matrix over GF(2) raised to the power |B| by squaring), xor the CRC of B.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace kalah {

// CRC-32C of `size` bytes at `data`, continuing from `crc` (0 to start): crc32c(B, crc32c(A))
// is the CRC of A followed by B.
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

// CRC-32C of A followed by B, from crc_a = crc32c(A), crc_b = crc32c(B) and B's length.
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b);

// CRC-32C of the parts as one byte string, continuing from `crc`: the same value as crc32c()
// over them in order, computed in chunks of `chunk` bytes on up to `threads` threads (0:
// OpenMP's default). Loading a database checks gigabytes this way: on one thread the other
// core waited (and an OpenMP worker spun) through every level's checksum.
std::uint32_t crc32c_parallel(std::span<const std::span<const unsigned char>> parts, int threads = 0,
                              std::uint32_t crc = 0, std::size_t chunk = std::size_t(4) << 20);

}  // namespace kalah
