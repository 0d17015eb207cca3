// The bodies of Elasticsearch's two handshakes and the prefix of every request
// body, as ES writes them (TaskId, TransportHandshaker, TransportService).
//
// Example (runs: handshake):
//   #include "stream/bytes_stream_output.h"
//   // connecting side, frame with status 0x08 at the minimum compatible version:
//   BytesStreamOutput request_body;
//   TcpHandshakeRequest{TransportVersion::V_8_7_0}.writeTo(request_body);  // 04 d3 c7 ec 03
//   // accepting side, answered at the request's header version:
//   TransportVersion local = TransportVersion::V_8_7_0;
//   BytesStreamOutput response_body;
//   TcpHandshakeResponse{local}.writeTo(response_body);  // d3 c7 ec 03
//
// A request body on the wire is TaskId (the parent task) followed by the
// request's own fields; the frame writer and InboundMessage add and strip the
// TaskId, so the structs here hold only what follows it. Value types; the
// functions are stateless and thread-safe. Readers take untrusted input and
// throw StreamError subclasses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/transport_version.h"
#include "stream/writeable.h"

namespace wirestream::transport {

// ES TaskId: String nodeId, then (only when nodeId is not empty) long id.
// The empty TaskId, one byte 00, is what a request without a parent carries.
struct TaskId {
  std::string node_id;
  int64_t id = -1;

  bool isSet() const { return !node_id.empty(); }
  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TaskId readFrom(StreamInput& in);
  bool operator==(const TaskId&) const = default;
};

// The header versions ES's TransportHandshaker sends its request at (and, from
// 8.18, the only ones it accepts one at): V7_HANDSHAKE_VERSION (6.8.0, 7.x),
// V8_HANDSHAKE_VERSION (7.17.0, 8.x) and V9_HANDSHAKE_VERSION (9.x). ES 8.18/8.19
// accept all three, 9.x the last two.
inline constexpr TransportVersion kV7HandshakeVersion = TransportVersion(6080099);
inline constexpr TransportVersion kV8HandshakeVersion = TransportVersion(7170099);
inline constexpr TransportVersion kV9HandshakeVersion = TransportVersion(8800000);
// ES 8.19's TransportHandshaker.V8_19_FIRST_VERSION: the oldest id ES 9.1 and later
// talk to; an 8.19 node warns (deprecation) about a peer below it.
inline constexpr TransportVersion kV8_19FirstVersion = TransportVersion(8841000);
// The first 9.x id (9.0.0 is 9000009): a node offering one sends its handshake
// request at kV9HandshakeVersion.
inline constexpr TransportVersion kFirst9xVersion = TransportVersion(9000000);

// internal:tcp/handshake request (after the TaskId): the sender's version as a
// VInt wrapped in a bytes reference (VInt length first), so that a later
// version can append fields; at a header version of kV9HandshakeVersion or later
// the wrapper also holds the sender's release string ("9.5.3"). The reader takes
// what its header version says and ignores what follows inside the wrapper, as
// ES does; below kV9HandshakeVersion it leaves release_version empty.
struct TcpHandshakeRequest {
  TransportVersion version = TransportVersion::current();
  // Written at kV9HandshakeVersion and later; empty: version.toString().
  std::string release_version{};
  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TcpHandshakeRequest readFrom(StreamInput& in);
};

// internal:tcp/handshake response: a version, VInt (the responder's own up to
// 8.8; from 8.18 the version it settled on), then at kV9HandshakeVersion and
// later the responder's release string.
struct TcpHandshakeResponse {
  TransportVersion version = TransportVersion::current();
  // Written at kV9HandshakeVersion and later; empty: version.toString().
  std::string release_version{};
  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TcpHandshakeResponse readFrom(StreamInput& in);
};

// ES 8's minimum compatible version, and the version whose handshake request
// header every ES 8 node uses.
inline constexpr TransportVersion kV7_17_0 = TransportVersion::fromRelease(7, 17, 0);

// The release string a version is offered under: its release's name
// ("8.19.21"), the plain id for an id that is no release's.
std::string releaseNameOf(TransportVersion version);

// The oldest version a node offering `version` talks to, as that ES release's
// TransportVersion.minimumCompatible(): the release table's row for it, else
// 6.8.0 for 7.x, 7.17.0 for 8.x up to the 8.19 line, 9.0's 8825000 below 9.1.0's
// id and 8.19's first id (8841000) after.
TransportVersion minimumCompatibleFor(TransportVersion version);

// The header version a node offering `version` (with `minimum_compatible`)
// sends its handshake request at: kV9HandshakeVersion from 9.0, else the
// minimum compatible version (ES 7.x and 8.x).
TransportVersion handshakeRequestHeaderVersion(TransportVersion version,
                                               TransportVersion minimum_compatible);

// The message ES uses when a peer's version is not compatible.
std::string unsupportedVersionMessage(TransportVersion remote, TransportVersion minimum);

// ES 8.18 and later (TransportHandshaker.ensureCompatibleVersion), each side of
// a handshake: the version to use with a peer that offered `remote` under the
// release string `remote_release`, received on `channel` (wording only). A
// compatible peer at or past `local` gets `local`; one below it gets its own
// version when this node knows it (a release of the table, or an id up to
// 8.8.1), else the newest known version below it, with ES's warning that the
// peer "appears to be from a chronologically-newer release". A peer below
// `minimum_compatible`, or one below every known version, is refused: `refusal`
// holds ES's "Rejecting unreadable transport handshake ..." message.
struct HandshakeNegotiation {
  std::optional<TransportVersion> agreed;  // unset: refused
  std::string refusal;
  std::string warning;      // ES's WARN line for a fallback, else empty
  std::string deprecation;  // ES 8.19's deprecation warning for a peer below 8841000
};
[[nodiscard]] HandshakeNegotiation negotiateHandshakeVersion(TransportVersion local,
                                                             TransportVersion minimum_compatible,
                                                             TransportVersion remote,
                                                             const std::string& remote_release,
                                                             const std::string& channel);

// ES 8.18 and later refuse a handshake request whose header version is not one
// of their ALLOWED_HANDSHAKE_VERSIONS (InboundDecoder closes the connection, no
// answer). Empty when a node offering `local` accepts `header`, else ES's
// message ("Received message from unsupported version: [...] allowed versions
// are: [...]"). Nodes offering a version before 8.18 keep 8.7's rule (any
// header version from their minimum compatible one).
std::string handshakeHeaderRefusal(TransportVersion local, TransportVersion header);

// TransportService's second handshake, a normal request after the first.
inline constexpr std::string_view kTransportHandshakeAction = "internal:transport/handshake";

// ES TransportAddress: byte n (4 or 16), n address bytes, String host, int port.
struct TransportAddress {
  std::vector<uint8_t> ip;  // 4 (IPv4) or 16 (IPv6) bytes
  std::string host;
  int32_t port = 0;

  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TransportAddress readFrom(StreamInput& in);
  // "127.0.0.1:9300" ([::1]:9300 for IPv6), as ES's NetworkAddress formats it.
  std::string toString() const;
  // From a dotted IPv4 / textual IPv6 address; std::invalid_argument if neither.
  static TransportAddress fromIp(const std::string& ip_text, int32_t port);
  bool operator==(const TransportAddress&) const = default;
};

struct DiscoveryNodeRole {
  std::string name;          // "data", "master", ...
  std::string abbreviation;  // "d", "m", ...
  bool can_contain_data = false;
  bool operator==(const DiscoveryNodeRole&) const = default;
};

// ES DiscoveryNode:
//   String name, id, ephemeralId, hostName, hostAddress; TransportAddress;
//   VInt n, n x (String key, String value) attributes;
//   VInt n, n x (String role, String abbreviation, boolean canContainData) roles;
//   VInt version id, ES's Version of the release: 8.19.21 is 8192199;
//   from V_8_10_X (8500061) VInt minIndexVersion, from V_8_18_0 (8840000) VInt
//     minReadOnlyIndexVersion, then VInt maxIndexVersion: ES's VersionInformation;
//   from 8.3.0 String externalId.
struct DiscoveryNode {
  std::string name;
  std::string id;
  std::string ephemeral_id;
  std::string host_name;
  std::string host_address;
  TransportAddress address;
  std::map<std::string, std::string> attributes;
  std::vector<DiscoveryNodeRole> roles;
  // The node's release version id (ES's Version), which up to 8.8.1 is also its
  // TransportVersion; from 8.9 see releaseVersionIdOf().
  TransportVersion version = TransportVersion::current();
  // From 8.3.0 (ES's EXTERNAL_ID_VERSION); empty: the name, as ES defaults it.
  std::string external_id;
  // ES's IndexVersion ids (VersionInformation), written from V_8_10_X; the
  // read-only one from V_8_18_0. indexVersionsOf() gives a release's.
  int32_t min_index_version = 0;
  int32_t min_read_only_index_version = 0;
  int32_t max_index_version = 0;

  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static DiscoveryNode readFrom(StreamInput& in);
  bool operator==(const DiscoveryNode&) const = default;
};

// The version DiscoveryNode gained its external id at.
inline constexpr TransportVersion kDiscoveryNodeExternalIdVersion =
    TransportVersion::fromRelease(8, 3, 0);

// The release version id (ES's Version.id, major * 1000000 + minor * 10000 +
// revision * 100 + 99) of the release a version is offered as: 8.19.21's id
// (8841096) gives 8192199; an id up to 8.8.1 is its own; an id of no release
// gives the newest release of the table below it (0 if none).
int32_t releaseVersionIdOf(TransportVersion version);

// A release's IndexVersion ids as its VersionInformation.CURRENT holds them
// (read off the jars of the table's releases from 8.18.8 on; a version between
// rows takes the row below it).
struct IndexVersions {
  int32_t min_compatible = 0;
  int32_t min_read_only = 0;
  int32_t max = 0;
};
IndexVersions indexVersionsOf(TransportVersion version);

// internal:transport/handshake: the request is an empty TransportRequest (the
// TaskId alone); the response, at 7.17.0 and later, is
//   VInt version, String buildHash, DiscoveryNode, String clusterName.
// The version is ES's Version (the release id: releaseVersionIdOf()), which up
// to 8.8.1 equals the TransportVersion.
struct TransportHandshakeResponse {
  TransportVersion version = TransportVersion::current();
  std::string build_hash;
  DiscoveryNode node;
  std::string cluster_name;

  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TransportHandshakeResponse readFrom(StreamInput& in);
};

// Writeable adapters for the frame writers.
template <class T>
struct BodyOf final : Writeable {
  const T& value;
  explicit BodyOf(const T& v) : value(v) {}
  void writeTo(StreamOutput& out) const override { value.writeTo(out); }
};

}  // namespace wirestream::transport
