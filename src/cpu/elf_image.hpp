// src/cpu/elf_image.hpp: checks that an ELF image (a host shared object, a cubin) is whole
// before anything maps or parses it.
//
// A cache entry's checksum proves that its bytes are the ones that were stored, not that they
// are a whole object: an entry stored from a truncated or forged file passes it. The dynamic
// loader maps a shared object's segments from its file, and touching a page past the end of
// the file kills the process with SIGBUS; the CUDA driver reads a cubin's sections from
// memory. elf_image_problem() checks, without trusting any offset or count in the image, that
// the ELF header, the program header table, every segment's file bytes, the section header
// table and every section's file bytes lie within the image. It says nothing about whether
// the code inside is any good.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jitvec::cpu {

/// Why `bytes` are not a whole ELF image of this machine's byte order (32- or 64-bit), or
/// nullopt when every header, segment and section lies within them.
std::optional<std::string> elf_image_problem(std::string_view bytes);

}  // namespace jitvec::cpu
