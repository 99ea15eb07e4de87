// solver/db/crc32c.hpp — CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78,
// initial value and final xor 0xFFFFFFFF), the checksum of the database files. The same
// function as iSCSI's and ext4's; crc32c("123456789") = 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kalah {

// CRC-32C of `size` bytes at `data`, continuing from `crc` (0 to start).
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace kalah
