// The release table (TransportVersion::releases()): for each Elasticsearch release pinned in
// interop/es-versions.txt, its TransportVersion.current() id and its minimum compatible id,
// as its own server jar from Maven Central reports them (interop/versions,
// ReleaseVersions.java). tools/interop.sh's `versions` check compares every row with the jar
// and fails on any difference, and on a row that is not pinned; a release added here must be
// pinned there, and the other way round.
//
// Oldest first. After 8.8.1 an id says nothing about its release (8.19.0 is 8841064, 9.1.0
// 9112003), and ids do not follow release dates: 8.19.21 (8841096) came out after 9.0.0
// (9000009), its patch ids backported to the 8.19 branch below every 9.x id.
#include <iterator>

#include "stream/transport_version.h"

namespace wirestream {

namespace {

constexpr TransportVersionRelease kReleases[] = {
    // release, TransportVersion.current().id(), minimum compatible id
    {"7.17.29", 7172999, 6080099}, {"8.7.1", 8070199, 7170099},  {"8.8.0", 8080099, 7170099},
    {"8.18.8", 8840011, 7170099},  {"8.19.0", 8841064, 7170099}, {"8.19.7", 8841072, 7170099},
    {"8.19.21", 8841096, 7170099}, {"9.0.0", 9000009, 8825000},  {"9.0.8", 9000018, 8825000},
    {"9.1.0", 9112003, 8841000},   {"9.1.10", 9112018, 8841000}, {"9.2.8", 9185023, 8841000},
    {"9.3.4", 9250011, 8841000},   {"9.5.3", 9458007, 8841000},
};

static_assert(TransportVersion::current().id() == std::end(kReleases)[-1].id,
              "TransportVersion::current() is the newest release of the table");

}  // namespace

std::span<const TransportVersionRelease> TransportVersion::releases() { return kReleases; }

}  // namespace wirestream
