// Writes the fuzz targets' seed inputs from the cases of corpora/ (fuzz/README.md):
//   OUT/case/N.json   each case as a file of its own (case_file_fuzzer)
//   OUT/wire/N.bin    each case as the call request the isolation child reads (wire_fuzzer),
//                     its bindings laid out small enough for the fuzzer's shared memory
//   OUT/abi/N.bin     each case's descriptor in the wire encoding behind a 0 byte (abi_fuzzer)
// Usage: dmlcert_fuzz_seeds CORPORA_DIR OUT_DIR
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "dmlcert/case.h"
#include "plugin/call_memory.h"
#include "plugin/wire.h"

namespace {

using namespace dmlcert;
namespace fs = std::filesystem;

void put(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::cerr << "dmlcert_fuzz_seeds: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: dmlcert_fuzz_seeds CORPORA_DIR OUT_DIR\n";
    return 2;
  }
  const LoadedCases loaded = load_cases({argv[1]});
  for (const CaseError& e : loaded.errors) std::cerr << e.to_string() << "\n";
  if (loaded.cases.empty()) return 1;
  const fs::path out = argv[2];
  for (const char* dir : {"case", "wire", "abi"}) fs::create_directories(out / dir);
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  for (size_t i = 0; i < loaded.cases.size(); ++i) {
    const Case& c = loaded.cases[i];
    const std::string n = std::to_string(i);
    put(out / "case" / (n + ".json"), to_json(c, false));

    std::array<uint64_t, kRoleCount> sizes{};
    for (Role r : roles(op_kind(c.op)))
      sizes[static_cast<size_t>(r)] = std::min<uint64_t>(tensor(c.op, r)->total_bytes, 64 << 10);
    plugin::wire::Writer call;
    call.u8(static_cast<uint8_t>(plugin::wire::Request::Call));
    call.u64(i);
    call.u8(static_cast<uint8_t>(c.level));
    call.desc(c.op);
    plugin::wire::write(call, plugin::lay_out(roles(op_kind(c.op)), sizes, page));
    put(out / "wire" / (n + ".bin"), call.bytes());

    plugin::wire::Writer desc;
    desc.desc(c.op);
    put(out / "abi" / (n + ".bin"), std::string(1, '\0') + desc.bytes());
  }
  std::cout << loaded.cases.size() << " cases from " << argv[1] << " written to " << out.string() << "\n";
  return 0;
}
