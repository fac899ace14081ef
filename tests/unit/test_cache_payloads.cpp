// tests/unit/test_cache_payloads.cpp: an entry whose checksum is valid but whose binary is not
// whole (a truncated shared object or cubin) is a miss that recompiles, never a crash inside
// dlopen (SIGBUS) nor an error: elf_image_problem() on hand-made images, the disk cache on such
// entries, and the engine loading one.
#include <elf.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cache/cache_entry.hpp"
#include "cache/disk_cache.hpp"
#include "catch.hpp"
#include "cpu/elf_image.hpp"
#include "cpu/host_module.hpp"
#include "support.hpp"
#include "unit/log_capture.hpp"

namespace {

namespace fs = std::filesystem;
using jitvec::cpu::elf_image_problem;

/// A small 64-bit ELF image: header, one program header, two section headers, payload bytes.
std::string make_elf(std::uint64_t payload_size = 256) {
  const std::uint64_t payload_offset = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  const std::uint64_t section_offset = payload_offset + payload_size;
  std::string image(section_offset + 2 * sizeof(Elf64_Shdr), '\0');
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 1;
  header.e_shoff = section_offset;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 2;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  Elf64_Phdr segment{};
  segment.p_type = PT_LOAD;
  segment.p_offset = 0;
  segment.p_filesz = section_offset;
  segment.p_memsz = section_offset + 4096;  // .bss-like tail: memory, not file bytes
  Elf64_Shdr sections[2]{};
  sections[1].sh_type = SHT_PROGBITS;
  sections[1].sh_offset = payload_offset;
  sections[1].sh_size = payload_size;
  std::memcpy(image.data(), &header, sizeof header);
  std::memcpy(image.data() + sizeof header, &segment, sizeof segment);
  std::memcpy(image.data() + section_offset, sections, sizeof sections);
  for (std::uint64_t i = 0; i < payload_size; ++i) image[payload_offset + i] = static_cast<char>(i);
  return image;
}

template <class T>
void poke(std::string& image, std::size_t offset, T value) {
  std::memcpy(image.data() + offset, &value, sizeof value);
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("elf_image_problem accepts whole images and names what sticks out", "[cache][elf]") {
  const std::string good = make_elf();
  CHECK_FALSE(elf_image_problem(good));

  // A real shared object of this machine, whole and cut short.
  for (const char* library : {"/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6",
                              "/usr/lib64/libm.so.6"}) {
    if (!fs::exists(library)) continue;
    const std::string real = read_file(library);
    INFO(library);
    CHECK_FALSE(elf_image_problem(real));
    const auto cut = elf_image_problem(std::string_view(real).substr(0, real.size() / 2));
    REQUIRE(cut);
    CHECK(cut->find("truncated ELF image") != std::string::npos);
    break;
  }

  CHECK(*elf_image_problem("") == "not an ELF image (no ELF magic)");
  CHECK(*elf_image_problem(std::string(4096, 'j')) == "not an ELF image (no ELF magic)");
  CHECK(elf_image_problem(good.substr(0, 40))->find("shorter than its 64-byte header") !=
        std::string::npos);
  // Cut inside the section table, inside the payload, inside the program header.
  CHECK(elf_image_problem(good.substr(0, good.size() - 1))->find("section headers") !=
        std::string::npos);
  CHECK(elf_image_problem(good.substr(0, sizeof(Elf64_Ehdr) + 10))->find("program headers") !=
        std::string::npos);

  std::string segment_past_end = good;
  poke<Elf64_Xword>(segment_past_end, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_filesz),
                    good.size() + 1);
  CHECK(*elf_image_problem(segment_past_end) ==
        "truncated ELF image: segment 0 ends at byte " + std::to_string(good.size() + 1) +
            " of " + std::to_string(good.size()));

  std::string huge_offset = good;  // offsets that would overflow an addition
  poke<Elf64_Off>(huge_offset, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_offset),
                  ~Elf64_Off{0} - 4);
  CHECK(elf_image_problem(huge_offset));

  std::string many_sections = good;
  poke<Elf64_Half>(many_sections, offsetof(Elf64_Ehdr, e_shnum), 60000);
  CHECK(elf_image_problem(many_sections)->find("60000 section headers") != std::string::npos);

  std::string section_past_end = good;
  const std::size_t section1 = good.size() - sizeof(Elf64_Shdr);
  poke<Elf64_Xword>(section_past_end, section1 + offsetof(Elf64_Shdr, sh_size), 1 << 20);
  CHECK(elf_image_problem(section_past_end)->find("section 1 ends at byte") != std::string::npos);
  poke<Elf64_Word>(section_past_end, section1 + offsetof(Elf64_Shdr, sh_type), SHT_NOBITS);
  CHECK_FALSE(elf_image_problem(section_past_end));  // .bss has no file bytes
}

TEST_CASE("a host module refuses a truncated shared object with an error, not a crash",
          "[cache][elf]") {
  const std::string cut = make_elf().substr(0, 200);
  std::string message;
  try {
    jitvec::cpu::HostModule::load_bytes(cut);
  } catch (const jitvec::Error& error) {
    message = error.what();
  }
  CHECK(message.find("could not load the host module") != std::string::npos);
  CHECK(message.find("truncated ELF image") != std::string::npos);
}

TEST_CASE("the disk cache misses an entry whose shared object or cubin is not whole",
          "[cache][elf]") {
  jitvec_test::TempDir dir;
  jitvec::cache::CacheSettings settings;
  settings.dir = dir.path();
  jitvec::cache::DiskCache cache(settings);
  for (const auto kind : {jitvec::cache::payload_kind::shared_object,
                          jitvec::cache::payload_kind::cubin}) {
    INFO(kind);
    jitvec::cache::CacheKey key;
    key.add("payload", std::string(kind));
    jitvec::cache::CacheEntry entry;
    entry.add_payload(kind, make_elf());
    entry.add_payload(jitvec::cache::payload_kind::log, "fine");
    cache.store(key, entry);
    REQUIRE(cache.load(key));

    entry.payloads[0].bytes.resize(entry.payloads[0].bytes.size() - 100);
    cache.store(key, entry);  // a valid checksum over a truncated binary
    const jitvec_test::LogCapture log;
    CHECK_FALSE(cache.load(key));
    CHECK(log.warnings({"damaged payload '" + std::string(kind) + "': truncated ELF image"}) == 1);
    const auto report = cache.verify();
    REQUIRE(report.problems.size() == 1);
    CHECK(report.problems[0].reason.find("damaged payload") != std::string::npos);
    cache.clear();
  }
}

namespace {

/// Cuts the `kind` payload of every entry under `dir` to half its size, re-serialized (so the
/// checksum is valid); returns how many payloads it cut.
int truncate_payloads(const fs::path& dir, std::string_view kind) {
  int truncated = 0;
  for (const auto& file : fs::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file() || file.path().extension() != ".jvk") continue;
    jitvec::cache::CacheEntry entry = jitvec::cache::parse(read_file(file.path()));
    for (jitvec::cache::Payload& payload : entry.payloads) {
      if (payload.kind != kind) continue;
      payload.bytes.resize(payload.bytes.size() / 2);
      ++truncated;
    }
    std::ofstream(file.path(), std::ios::binary | std::ios::trunc)
        << jitvec::cache::serialize(entry);
  }
  return truncated;
}

}  // namespace

TEST_CASE("an engine whose cached cubin is truncated compiles the loop again",
          "[gpu][cache][elf]") {
  using namespace jitvec;
  if (!jitvec_test::gpu_usable()) JITVEC_SKIP(jitvec_test::gpu_skip_reason());
  jitvec_test::TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<fs::path>{};
  options.stand_ins = false;  // one cubin: the call's own kernel
  // One rounding: the float64 reference rounded to float32 is exact.
  const char* source = "__device__ float scaled(float x) { return x * x; }";
  std::vector<float> x(4096);
  for (float& value : x) {
    value = std::uniform_real_distribution<float>(-10.0f, 10.0f)(jitvec_test::rng());
  }
  {
    Engine first(options);
    first.vectorize("scaled", {"float32(float32)"}, source)(to_device(x), target(Target::cuda));
    REQUIRE(first.stats().compiles == 1);
  }
  REQUIRE(truncate_payloads(dir.path(), cache::payload_kind::cubin) == 1);
  Engine second(options);
  const std::vector<float> y = second.vectorize("scaled", {"float32(float32)"}, source)(
                                       to_device(x), target(Target::cuda))
                                   .to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(y[i] == static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(x[i])));
  }
  CHECK(second.stats().compiles == 1);
  CHECK(second.stats().disk_hits == 0);
}

TEST_CASE("an engine whose cached shared object is truncated compiles the loop again",
          "[cache][elf][engine]") {
  using namespace jitvec;
  jitvec_test::TempDir dir;
  EngineOptions options;
  options.cache.dir = dir.path();
  options.cache.read_only_dirs = std::vector<fs::path>{};
  const char* source = "__device__ double twice_plus(double x) { return 2.0 * x + 0.5; }";
  std::vector<double> x(1000);
  for (double& value : x) {
    value = std::uniform_real_distribution<double>(-100.0, 100.0)(jitvec_test::rng());
  }
  {
    Engine first(options);
    first.vectorize("twice_plus", {"float64(float64)"}, source)(x, target(Target::cpu));
    REQUIRE(first.stats().compiles == 1);
  }
  // Its segments now end past the end of the file: dlopen would die of SIGBUS.
  REQUIRE(truncate_payloads(dir.path(), cache::payload_kind::shared_object) == 1);

  Engine second(options);
  Ufunc twice_plus = second.vectorize("twice_plus", {"float64(float64)"}, source);
  std::vector<double> out(x.size(), std::nan(""));
  twice_plus(x, jitvec::out(from_vector(out)), target(Target::cpu));
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(out[i] == 2.0 * x[i] + 0.5);
  CHECK(second.stats().compiles == 1);
  CHECK(second.stats().disk_hits == 0);
}
