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

// internal:tcp/handshake request (after the TaskId): the sender's version as a
// VInt wrapped in a bytes reference (VInt length first), so that a later
// version can append fields. The reader takes the version and ignores what
// follows it inside the wrapper, as ES does.
struct TcpHandshakeRequest {
  TransportVersion version = TransportVersion::current();
  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TcpHandshakeRequest readFrom(StreamInput& in);
};

// internal:tcp/handshake response: the responder's version, VInt.
struct TcpHandshakeResponse {
  TransportVersion version = TransportVersion::current();
  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static TcpHandshakeResponse readFrom(StreamInput& in);
};

// ES 8's minimum compatible version, and the version whose handshake request
// header every ES 8 node uses.
inline constexpr TransportVersion kV7_17_0 = TransportVersion::fromRelease(7, 17, 0);

// The message ES uses when a peer's version is not compatible.
std::string unsupportedVersionMessage(TransportVersion remote, TransportVersion minimum);

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

// ES DiscoveryNode as 7.17 and 8.x up to 8.7 write it:
//   String name, id, ephemeralId, hostName, hostAddress; TransportAddress;
//   VInt n, n x (String key, String value) attributes;
//   VInt n, n x (String role, String abbreviation, boolean canContainData) roles;
//   VInt version id; from 8.3.0 String externalId.
struct DiscoveryNode {
  std::string name;
  std::string id;
  std::string ephemeral_id;
  std::string host_name;
  std::string host_address;
  TransportAddress address;
  std::map<std::string, std::string> attributes;
  std::vector<DiscoveryNodeRole> roles;
  TransportVersion version = TransportVersion::current();
  // From 8.3.0 (ES's EXTERNAL_ID_VERSION); empty: the name, as ES defaults it.
  std::string external_id;

  void writeTo(StreamOutput& out) const;
  [[nodiscard]] static DiscoveryNode readFrom(StreamInput& in);
  bool operator==(const DiscoveryNode&) const = default;
};

// The version DiscoveryNode gained its external id at.
inline constexpr TransportVersion kDiscoveryNodeExternalIdVersion =
    TransportVersion::fromRelease(8, 3, 0);

// internal:transport/handshake: the request is an empty TransportRequest (the
// TaskId alone); the response, at 7.17.0 and later, is
//   VInt version, String buildHash, DiscoveryNode, String clusterName.
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
