// wirestream's side of the release-table check (tools/interop.sh, the `versions` check):
// prints what TransportVersion makes of each release, in the line format of
// interop/versions (ReleaseVersions.java), so that the two compare as text.
//
//   release_table RELEASE...   "release R ID MINIMUM_COMPATIBLE_ID" per release, as parse()
//                              and the table give it, or "release R unknown: WHY"
//   release_table --all        every row of TransportVersion::releases()
#include <cstdio>
#include <exception>
#include <string>

#include "stream/transport_version.h"

using wirestream::TransportVersion;
using wirestream::TransportVersionRelease;

namespace {

void printRow(const TransportVersionRelease& r) {
  std::printf("release %.*s %d %d\n", static_cast<int>(r.release.size()), r.release.data(), r.id,
              r.minimum_compatible_id);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--all") {
    for (const TransportVersionRelease& r : TransportVersion::releases()) printRow(r);
    return 0;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: release_table RELEASE... | --all\n");
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    std::string release = argv[i];
    auto row = TransportVersion::findRelease(release);
    if (!row) {
      std::printf("release %s unknown: not in TransportVersion::releases()\n", release.c_str());
      rc = 1;
      continue;
    }
    try {
      // What --version takes must be the table's row: parse() is the path every caller uses.
      TransportVersion parsed = TransportVersion::parse(release);
      // toString names the first release with the id: it must parse back to the same id.
      if (parsed.id() != row->id || TransportVersion::parse(parsed.toString()) != parsed) {
        std::printf("release %s unknown: parse gives %d (%s), the row %d\n", release.c_str(),
                    parsed.id(), parsed.toString().c_str(), row->id);
        rc = 1;
        continue;
      }
    } catch (const std::exception& e) {
      std::printf("release %s unknown: %s\n", release.c_str(), e.what());
      rc = 1;
      continue;
    }
    printRow(*row);
  }
  return rc;
}
