#include "cpu/elf_image.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace jitvec::cpu {
namespace {

/// Whether [offset, offset + length) lies within `size` bytes, without overflow.
bool within(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

template <class T>
T read_at(std::string_view bytes, std::uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// The checks for one ELF class: Ehdr, Phdr and Shdr are Elf32_* or Elf64_*.
template <class Ehdr, class Phdr, class Shdr>
std::optional<std::string> class_problem(std::string_view bytes) {
  const std::uint64_t size = bytes.size();
  if (size < sizeof(Ehdr)) {
    return fmt::format("truncated ELF image: {} bytes, shorter than its {}-byte header", size,
                       sizeof(Ehdr));
  }
  const auto header = read_at<Ehdr>(bytes, 0);
  if (header.e_phnum != 0) {
    if (header.e_phentsize < sizeof(Phdr)) {
      return fmt::format("malformed ELF image: program header entries of {} bytes",
                         header.e_phentsize);
    }
    const std::uint64_t table = std::uint64_t{header.e_phnum} * header.e_phentsize;
    if (!within(header.e_phoff, table, size)) {
      return fmt::format("truncated ELF image: its program headers end at byte {} of {}",
                         std::uint64_t{header.e_phoff} + table, size);
    }
    for (unsigned i = 0; i < header.e_phnum; ++i) {
      const auto segment =
          read_at<Phdr>(bytes, header.e_phoff + std::uint64_t{i} * header.e_phentsize);
      if (!within(segment.p_offset, segment.p_filesz, size)) {
        return fmt::format("truncated ELF image: segment {} ends at byte {} of {}", i,
                           std::uint64_t{segment.p_offset} + segment.p_filesz, size);
      }
    }
  }
  if (header.e_shoff != 0) {
    if (header.e_shentsize < sizeof(Shdr)) {
      return fmt::format("malformed ELF image: section header entries of {} bytes",
                         header.e_shentsize);
    }
    if (!within(header.e_shoff, header.e_shentsize, size)) {
      return fmt::format("truncated ELF image: its section headers start at byte {} of {}",
                         std::uint64_t{header.e_shoff}, size);
    }
    // With 0xff00 sections or more, e_shnum is 0 and section 0's sh_size holds the count.
    std::uint64_t count = header.e_shnum;
    if (count == 0) count = read_at<Shdr>(bytes, header.e_shoff).sh_size;
    if (count > (size - header.e_shoff) / header.e_shentsize) {
      return fmt::format("truncated ELF image: {} section headers of {} bytes do not fit after "
                         "byte {} of {}",
                         count, header.e_shentsize, std::uint64_t{header.e_shoff}, size);
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto section = read_at<Shdr>(bytes, header.e_shoff + i * header.e_shentsize);
      if (section.sh_type != SHT_NOBITS && !within(section.sh_offset, section.sh_size, size)) {
        return fmt::format("truncated ELF image: section {} ends at byte {} of {}", i,
                           std::uint64_t{section.sh_offset} + section.sh_size, size);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> elf_image_problem(std::string_view bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return std::string("not an ELF image (no ELF magic)");
  }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr unsigned char kHostData = ELFDATA2LSB;
#else
  constexpr unsigned char kHostData = ELFDATA2MSB;
#endif
  if (static_cast<unsigned char>(bytes[EI_DATA]) != kHostData) {
    return std::string("an ELF image of the other byte order");
  }
  switch (static_cast<unsigned char>(bytes[EI_CLASS])) {
    case ELFCLASS64:
      return class_problem<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr>(bytes);
    case ELFCLASS32:
      return class_problem<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr>(bytes);
    default:
      return fmt::format("malformed ELF image: class {}", static_cast<int>(bytes[EI_CLASS]));
  }
}

}  // namespace jitvec::cpu
