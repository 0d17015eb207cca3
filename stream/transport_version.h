// TransportVersion: the protocol version a stream is written or read at.
//
// Ids follow Elasticsearch, in two shapes:
//  - up to 8.8.1 the id is the release's: major * 1000000 + minor * 10000 +
//    revision * 100 + 99, so 7.10.0 is 7100099 and 8.7.0 is 8070099 (fromRelease).
//  - after that ES numbers its wire changes apart from its releases (8_500_020 for
//    8.9, M_NNN_S_PP since: 8.19.0 is 8841064, 9.1.0 is 9112003), and a release's
//    id is whatever its TransportVersion.current() is. Those come from the table
//    below (releases()), read off ES's own jars (interop/versions, checked in CI by
//    tools/interop.sh).
// Writers and readers branch on
// `out.transportVersion().onOrAfter(TransportVersion::V_8_0_0)`; bytes written
// at version X must be read at version X. A value type; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace wirestream {

// One Elasticsearch release: its TransportVersion.current() id and the oldest id it
// talks to (its minimum compatible version), as its own jar reports them.
struct TransportVersionRelease {
  std::string_view release;  // "9.1.0"
  int32_t id;
  int32_t minimum_compatible_id;
};

class TransportVersion {
 public:
  constexpr explicit TransportVersion(int32_t id) : id_(id) {}

  // The version for major.minor.revision, e.g. fromRelease(8, 7, 0).
  [[nodiscard]] static constexpr TransportVersion fromRelease(int major, int minor, int revision) {
    return TransportVersion(major * 1000000 + minor * 10000 + revision * 100 + 99);
  }

  static const TransportVersion V_7_10_0;
  static const TransportVersion V_7_15_0;
  // The oldest version an 8.x node talks to (ES 8's minimum wire-compatible version).
  static const TransportVersion V_7_17_0;
  static const TransportVersion V_8_0_0;
  static const TransportVersion V_8_7_0;
  // The gates after 8.7 that types wirestream reads or writes cross, with ES's names
  // (TransportVersions in 8.19; docs/wire-format.md, "Versions after 8.7"). 8.8.0 is the
  // last release-shaped id; the others are ES's own numbering of wire changes.
  static const TransportVersion V_8_8_0;   // 8080099: exception ids 168 on; search rank builder
  static const TransportVersion V_8_9_X;   // 8500020: a search source's query as sub_searches
  static const TransportVersion V_8_10_X;  // 8500061: DiscoveryNode's index versions
  static const TransportVersion V_8_11_X;  // 8512001: generic tag 30 (GenericNamedWriteable)
  static const TransportVersion V_8_12_1;  // 8560001: downsampledResultsOffset, as a patch
  static const TransportVersion V_8_13_0;  // 8595000: date_histogram downsampledResultsOffset
  static const TransportVersion
      V_8_14_0;  // 8636001: end of 8.13's unsorted histogram buckets; terms exclude_deleted_docs
  static const TransportVersion V_8_16_0;  // 8772001: zoned date-time, date_time's locale
  static const TransportVersion V_8_18_0;  // 8840000: handshakes settle; read-only index version
  // 8791000 (8772003 on 8.16's patch line): a search source's skip_inner_hits flag.
  static const TransportVersion SKIP_INNER_HITS_SEARCH_SOURCE;
  static const TransportVersion SKIP_INNER_HITS_SEARCH_SOURCE_BACKPORT_8_16;
  // ES's named version batched_query_phase_version: 9043000, and 8841019 on 8.19's patch
  // line (a QuerySearchResult's optional context id and top docs, its `reduced` flag).
  static const TransportVersion BATCHED_QUERY_PHASE_VERSION;
  static const TransportVersion BATCHED_QUERY_PHASE_VERSION_8_19;
  // 9.x's named versions a shard search request crosses (ES's names; no patch-line ids).
  static const TransportVersion INDICES_OPTIONS_RESOLUTION_MODE;                   // 9192000
  static const TransportVersion SHARD_SEARCH_REQUEST_RESHARD_SHARD_COUNT_SUMMARY;  // 9198000
  static const TransportVersion CHUNKED_FETCH_PHASE;                               // 9333000
  static const TransportVersion SEARCH_SLICE_ROUTING_STATE_VERSION;                // 9379000
  static const TransportVersion SHARD_RESULTS_SKIP_SHARD_SEARCH_REQUEST;           // 9437000
  // ... and a query result crosses: aggregations compressed (9059000), then framed with their
  // uncompressed size (9398000; 9348005 on 9.3's line, 9250015 on 9.2's), a timestamp range
  // telemetry (9188000), directory metrics (9421000).
  static const TransportVersion COMPRESS_DELAYABLE_WRITEABLE;
  static const TransportVersion DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE;
  static const TransportVersion DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_3;
  static const TransportVersion DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_2;
  static const TransportVersion TIMESTAMP_RANGE_TELEMETRY;
  static const TransportVersion SEARCH_PHASE_BYTES_READ;

  // The version this build writes and offers by default: the newest release it
  // supports, the last row of releases() (9.5.3's 9458007), as ES's own
  // TransportVersion.current() is its newest. Bytes for an older peer are written
  // at that peer's version (e.g. V_8_7_0), never at current().
  static constexpr TransportVersion current();

  constexpr int32_t id() const { return id_; }
  constexpr bool onOrAfter(TransportVersion other) const { return id_ >= other.id_; }
  constexpr bool before(TransportVersion other) const { return id_ < other.id_; }
  // ES's isPatchFrom: at or after `base` and on the same patch line (id / 1000 equal),
  // for a change backported to a release branch as a patch id of `base`.
  constexpr bool isPatchFrom(TransportVersion base) const {
    return id_ >= base.id_ && id_ / 1000 == base.id_ / 1000;
  }
  constexpr auto operator<=>(const TransportVersion&) const = default;
  // Whether the id has the first shape (a release's, ending in 99, below 8500000:
  // up to 8.8.1's 8080199), which names its release and which every ES node knows.
  constexpr bool isReleaseShaped() const { return id_ >= 0 && id_ < 8500000 && id_ % 100 == 99; }

  // The release name for an id that is a release's ("8.7.0"; after 8.8.1, the first
  // release in releases() whose id it is, e.g. "9.1.0"), the plain id otherwise.
  std::string toString() const;
  // Parses a release or a plain id such as "8070099"; std::invalid_argument if neither.
  // A release up to 8.7.x is fromRelease's arithmetic; a later one ("8.19.7", "9.1.0")
  // must be in releases(), whose id it is; an unknown later release is refused, never
  // guessed.
  static TransportVersion parse(const std::string& text);

  // The release table: every release wirestream knows the id of (those pinned in
  // interop/es-versions.txt), oldest first. Releases up to 8.7.x are here too (their
  // ids are fromRelease's); any other release up to 8.7.x still parses by arithmetic.
  static std::span<const TransportVersionRelease> releases();
  // The row for "9.1.0", if it is in releases().
  static std::optional<TransportVersionRelease> findRelease(std::string_view release);
  // The first row of releases() whose id is `version`'s, if any.
  static std::optional<TransportVersionRelease> findRelease(TransportVersion version);

 private:
  int32_t id_;
};

inline constexpr TransportVersion TransportVersion::V_7_10_0 =
    TransportVersion::fromRelease(7, 10, 0);
inline constexpr TransportVersion TransportVersion::V_7_15_0 =
    TransportVersion::fromRelease(7, 15, 0);
inline constexpr TransportVersion TransportVersion::V_7_17_0 =
    TransportVersion::fromRelease(7, 17, 0);
inline constexpr TransportVersion TransportVersion::V_8_0_0 =
    TransportVersion::fromRelease(8, 0, 0);
inline constexpr TransportVersion TransportVersion::V_8_7_0 =
    TransportVersion::fromRelease(8, 7, 0);

inline constexpr TransportVersion TransportVersion::V_8_8_0 = TransportVersion(8080099);
inline constexpr TransportVersion TransportVersion::V_8_9_X = TransportVersion(8500020);
inline constexpr TransportVersion TransportVersion::V_8_10_X = TransportVersion(8500061);
inline constexpr TransportVersion TransportVersion::V_8_11_X = TransportVersion(8512001);
inline constexpr TransportVersion TransportVersion::V_8_12_1 = TransportVersion(8560001);
inline constexpr TransportVersion TransportVersion::V_8_13_0 = TransportVersion(8595000);
inline constexpr TransportVersion TransportVersion::V_8_14_0 = TransportVersion(8636001);
inline constexpr TransportVersion TransportVersion::V_8_16_0 = TransportVersion(8772001);
inline constexpr TransportVersion TransportVersion::V_8_18_0 = TransportVersion(8840000);
inline constexpr TransportVersion TransportVersion::SKIP_INNER_HITS_SEARCH_SOURCE =
    TransportVersion(8791000);
inline constexpr TransportVersion TransportVersion::SKIP_INNER_HITS_SEARCH_SOURCE_BACKPORT_8_16 =
    TransportVersion(8772003);
inline constexpr TransportVersion TransportVersion::BATCHED_QUERY_PHASE_VERSION =
    TransportVersion(9043000);
inline constexpr TransportVersion TransportVersion::BATCHED_QUERY_PHASE_VERSION_8_19 =
    TransportVersion(8841019);
inline constexpr TransportVersion TransportVersion::INDICES_OPTIONS_RESOLUTION_MODE =
    TransportVersion(9192000);
inline constexpr TransportVersion
    TransportVersion::SHARD_SEARCH_REQUEST_RESHARD_SHARD_COUNT_SUMMARY = TransportVersion(9198000);
inline constexpr TransportVersion TransportVersion::CHUNKED_FETCH_PHASE = TransportVersion(9333000);
inline constexpr TransportVersion TransportVersion::SEARCH_SLICE_ROUTING_STATE_VERSION =
    TransportVersion(9379000);
inline constexpr TransportVersion TransportVersion::SHARD_RESULTS_SKIP_SHARD_SEARCH_REQUEST =
    TransportVersion(9437000);
inline constexpr TransportVersion TransportVersion::COMPRESS_DELAYABLE_WRITEABLE =
    TransportVersion(9059000);
inline constexpr TransportVersion TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE =
    TransportVersion(9398000);
inline constexpr TransportVersion TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_3 =
    TransportVersion(9348005);
inline constexpr TransportVersion TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_2 =
    TransportVersion(9250015);
inline constexpr TransportVersion TransportVersion::TIMESTAMP_RANGE_TELEMETRY =
    TransportVersion(9188000);
inline constexpr TransportVersion TransportVersion::SEARCH_PHASE_BYTES_READ =
    TransportVersion(9421000);
// Kept equal to the last row of releases() (checked where the table is defined).
constexpr TransportVersion TransportVersion::current() { return TransportVersion(9458007); }

}  // namespace wirestream
