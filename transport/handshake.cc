// Grammars (ES TaskId, TransportHandshaker, TransportService, DiscoveryNode,
// TransportAddress); gates at 7.17.0 and later: DiscoveryNode's external id
// (8.3.0) and VersionInformation (V_8_10_X, V_8_18_0), the release string of
// the tcp handshake bodies (V9_HANDSHAKE_VERSION 8800000):
//   TaskId                      String nodeId; nodeId != "": long id
//   tcp handshake request       VInt n; n bytes: VInt version, [>= 8800000]
//                               String release (+ ignored rest)
//   tcp handshake response      VInt version, [>= 8800000] String release
//   transport handshake resp.   VInt version, String buildHash, DiscoveryNode,
//                               String clusterName
//   DiscoveryNode               5 x String, TransportAddress, attributes map,
//                               roles (String, String, boolean), VInt version,
//                               [>= 8500061] VInt minIndex, [>= 8840000] VInt
//                               minReadOnlyIndex, [>= 8500061] VInt maxIndex,
//                               from 8.3.0 String externalId
//   TransportAddress            byte n, n bytes, String host, int port
#include "transport/handshake.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"

namespace wirestream::transport {

void TaskId::writeTo(StreamOutput& out) const {
  out.writeString(node_id);
  if (!node_id.empty()) out.writeLong(id);
}

TaskId TaskId::readFrom(StreamInput& in) {
  TaskId t;
  t.node_id = in.readString();
  if (!t.node_id.empty()) t.id = in.readLong();
  return t;
}

void TcpHandshakeRequest::writeTo(StreamOutput& out) const {
  // The wrapped fields go into a small buffer; the gate is the outer stream's.
  BytesStreamOutput inner;
  inner.writeVInt(version.id());
  if (out.transportVersion().onOrAfter(kV9HandshakeVersion)) {
    inner.writeString(release_version.empty() ? releaseNameOf(version) : release_version);
  }
  out.writeBytesReference(inner.bytes());
}

TcpHandshakeRequest TcpHandshakeRequest::readFrom(StreamInput& in) {
  const BytesReference wrapped = in.readBytesReference();
  BytesReferenceStreamInput inner(wrapped);
  TcpHandshakeRequest r;
  r.version = TransportVersion(inner.readVInt());
  if (in.transportVersion().onOrAfter(kV9HandshakeVersion)) r.release_version = inner.readString();
  return r;
}

void TcpHandshakeResponse::writeTo(StreamOutput& out) const {
  out.writeVInt(version.id());
  if (out.transportVersion().onOrAfter(kV9HandshakeVersion)) {
    out.writeString(release_version.empty() ? releaseNameOf(version) : release_version);
  }
}

TcpHandshakeResponse TcpHandshakeResponse::readFrom(StreamInput& in) {
  TcpHandshakeResponse r{TransportVersion(in.readVInt())};
  if (in.transportVersion().onOrAfter(kV9HandshakeVersion)) r.release_version = in.readString();
  return r;
}

namespace {

bool isKnown(TransportVersion version) {
  return version.isReleaseShaped() || TransportVersion::findRelease(version).has_value();
}

// The newest known version strictly below `version` (ES's bestKnownVersion of
// an unknown id); 0 when none is.
int32_t newestKnownBelow(TransportVersion version) {
  int32_t best = 0;
  for (const TransportVersionRelease& r : TransportVersion::releases()) {
    if (r.id < version.id() && r.id > best) best = r.id;
  }
  // The release-shaped ids below 8500000: the newest one below `version`.
  const int32_t cap = std::min(version.id() - 1, 8499999);
  if (cap > 0) {
    int32_t shaped = cap - ((cap - 99) % 100 + 100) % 100;
    if (shaped > best && TransportVersion(shaped).isReleaseShaped()) best = shaped;
  }
  return best;
}

std::string idText(TransportVersion v) { return std::to_string(v.id()); }

}  // namespace

std::string releaseNameOf(TransportVersion version) { return version.toString(); }

TransportVersion minimumCompatibleFor(TransportVersion version) {
  if (auto row = TransportVersion::findRelease(version)) {
    return TransportVersion(row->minimum_compatible_id);
  }
  if (version.id() < 8000000) return kV7HandshakeVersion;  // ES 7.x: 6.8.0
  if (version.before(kFirst9xVersion)) return kV7_17_0;
  // 9.0.x talks to 8.18 and 8.19 (8825000); 9.1 and later to 8.19 only.
  if (version.before(TransportVersion(9112003))) return TransportVersion(8825000);
  return kV8_19FirstVersion;
}

TransportVersion handshakeRequestHeaderVersion(TransportVersion version,
                                               TransportVersion minimum_compatible) {
  return version.onOrAfter(kFirst9xVersion) ? kV9HandshakeVersion : minimum_compatible;
}

HandshakeNegotiation negotiateHandshakeVersion(TransportVersion local,
                                               TransportVersion minimum_compatible,
                                               TransportVersion remote,
                                               const std::string& remote_release,
                                               const std::string& channel) {
  HandshakeNegotiation n;
  const std::string remote_name = remote_release.empty() ? releaseNameOf(remote) : remote_release;
  const std::string local_name = releaseNameOf(local);
  if (!remote.before(minimum_compatible)) {
    if (local.onOrAfter(kV8_19FirstVersion) && local.before(kFirst9xVersion) &&
        remote.before(kV8_19FirstVersion)) {
      n.deprecation = "Performed a handshake with a remote node with version [" + remote_name +
                      "/" + idText(remote) + "] received on [" + channel +
                      "] which will be incompatible after this node on version [" + local_name +
                      "/" + idText(local) + "] is upgraded to >= 9.1.";
    }
    if (remote.onOrAfter(local)) {
      n.agreed = local;
      return n;
    }
    const int32_t best = isKnown(remote) ? remote.id() : newestKnownBelow(remote);
    // (ES knows every id from its minimum on; wirestream only the table's, so a
    // fallback below the minimum is as unreadable as none.)
    if (best != 0 && !TransportVersion(best).before(minimum_compatible)) {
      if (best != remote.id()) {
        n.warning = "Negotiating transport handshake with remote node with version [" +
                    remote_name + "/" + idText(remote) + "] received on [" + channel +
                    "] which appears to be from a chronologically-newer release with a "
                    "numerically-older version compared to this node's version [" +
                    local_name + "/" + idText(local) +
                    "]. Upgrading to this version from a chronologically-newer release may not "
                    "work reliably and is not recommended. Falling back to transport protocol "
                    "version [" +
                    std::to_string(best) + "].";
      }
      n.agreed = TransportVersion(best);
      return n;
    }
  }
  n.deprecation.clear();
  n.refusal = "Rejecting unreadable transport handshake from remote node with version [" +
              remote_name + "/" + idText(remote) + "] received on [" + channel +
              "] since this node has version [" + local_name + "/" + idText(local) +
              "] which has an incompatible wire format.";
  return n;
}

std::string handshakeHeaderRefusal(TransportVersion local, TransportVersion header) {
  if (local.before(TransportVersion::V_8_18_0)) return "";
  const bool nine = local.onOrAfter(kFirst9xVersion);
  std::vector<TransportVersion> allowed;
  if (!nine) allowed.push_back(kV7HandshakeVersion);
  allowed.push_back(kV8HandshakeVersion);
  allowed.push_back(kV9HandshakeVersion);
  std::string list;
  for (TransportVersion v : allowed) {
    if (v == header) return "";
    list += (list.empty() ? "" : ", ") + idText(v);
  }
  return "Received message from unsupported version: [" + idText(header) +
         "] allowed versions are: [" + list + "]";
}

int32_t releaseVersionIdOf(TransportVersion version) {
  if (version.isReleaseShaped()) return version.id();
  std::string_view name;
  if (auto row = TransportVersion::findRelease(version)) {
    name = row->release;
  } else {
    int32_t best = 0;
    for (const TransportVersionRelease& r : TransportVersion::releases()) {
      if (r.id <= version.id() && r.id > best) {
        best = r.id;
        name = r.release;
      }
    }
    if (best == 0) return 0;
    if (TransportVersion(best).isReleaseShaped()) return best;
  }
  int parts[3] = {0, 0, 0};
  const char* p = name.data();
  const char* end = p + name.size();
  for (int& part : parts) {
    auto [next, ec] = std::from_chars(p, end, part);
    if (ec != std::errc()) return 0;
    p = next < end ? next + 1 : end;
  }
  return parts[0] * 1000000 + parts[1] * 10000 + parts[2] * 100 + 99;
}

IndexVersions indexVersionsOf(TransportVersion version) {
  // VersionInformation.CURRENT of each table release from 8.18.8 on, read off its jar.
  struct Row {
    int32_t id;
    IndexVersions index;
  };
  static constexpr Row kRows[] = {
      {8840011, {7000099, 7000099, 8525000}},  // 8.18.8
      {8841064, {7000099, 7000099, 8536000}},  // 8.19.0
      {8841072, {7000099, 7000099, 8536000}},  // 8.19.7
      {8841096, {7000099, 7000099, 8537000}},  // 8.19.21
      {9000009, {8000099, 7000099, 9009000}},  // 9.0.0
      {9000018, {8000099, 7000099, 9009000}},  // 9.0.8
      {9112003, {8000099, 7000099, 9033000}},  // 9.1.0
      {9112018, {8000099, 7000099, 9033001}},  // 9.1.10
      {9185023, {8000099, 7000099, 9039003}},  // 9.2.8
      {9250011, {8000099, 7000099, 9060001}},  // 9.3.4
      {9458007, {8000099, 7000099, 9111000}},  // 9.5.3
  };
  IndexVersions found = kRows[0].index;  // 8.10 to 8.18: 8.18.8's, the oldest known
  for (const Row& row : kRows) {
    if (row.id <= version.id()) found = row.index;
  }
  return found;
}

std::string unsupportedVersionMessage(TransportVersion remote, TransportVersion minimum) {
  return "Received message from unsupported version: [" + remote.toString() +
         "] minimal compatible version is: [" + minimum.toString() + "]";
}

void TransportAddress::writeTo(StreamOutput& out) const {
  if (ip.size() != 4 && ip.size() != 16) {
    throw std::invalid_argument("a transport address has 4 or 16 address bytes, not " +
                                std::to_string(ip.size()));
  }
  out.writeByte(static_cast<uint8_t>(ip.size()));
  out.writeBytes(ip);
  out.writeString(host);
  out.writeInt(port);
}

TransportAddress TransportAddress::readFrom(StreamInput& in) {
  TransportAddress a;
  const uint8_t n = in.readByte();
  if (n != 4 && n != 16) {
    internal::throwCorrupt("transport address of " + std::to_string(n) +
                           " bytes; expected 4 or 16");
  }
  a.ip.resize(n);
  in.readBytes(a.ip);
  a.host = in.readString();
  a.port = in.readInt();
  return a;
}

std::string TransportAddress::toString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (ip.size() == 4) {
    inet_ntop(AF_INET, ip.data(), text, sizeof text);
    return std::string(text) + ":" + std::to_string(port);
  }
  if (ip.size() == 16) {
    inet_ntop(AF_INET6, ip.data(), text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(port);
  }
  return host + ":" + std::to_string(port);
}

TransportAddress TransportAddress::fromIp(const std::string& ip_text, int32_t port) {
  TransportAddress a;
  a.host = ip_text;
  a.port = port;
  uint8_t buf[16];
  if (inet_pton(AF_INET, ip_text.c_str(), buf) == 1) {
    a.ip.assign(buf, buf + 4);
  } else if (inet_pton(AF_INET6, ip_text.c_str(), buf) == 1) {
    a.ip.assign(buf, buf + 16);
  } else {
    throw std::invalid_argument("not an IP address: [" + ip_text + "]");
  }
  return a;
}

void DiscoveryNode::writeTo(StreamOutput& out) const {
  out.writeString(name);
  out.writeString(id);
  out.writeString(ephemeral_id);
  out.writeString(host_name);
  out.writeString(host_address);
  address.writeTo(out);
  auto string = [](StreamOutput& o, const std::string& s) { o.writeString(s); };
  out.writeMap(attributes, string, string);
  out.writeVInt(static_cast<int32_t>(roles.size()));
  for (const DiscoveryNodeRole& role : roles) {
    out.writeString(role.name);
    out.writeString(role.abbreviation);
    out.writeBoolean(role.can_contain_data);
  }
  out.writeVInt(version.id());
  if (out.transportVersion().onOrAfter(TransportVersion::V_8_10_X)) {
    out.writeVInt(min_index_version);
    if (out.transportVersion().onOrAfter(TransportVersion::V_8_18_0))
      out.writeVInt(min_read_only_index_version);
    out.writeVInt(max_index_version);
  }
  if (out.transportVersion().onOrAfter(kDiscoveryNodeExternalIdVersion)) {
    out.writeString(external_id.empty() ? name : external_id);
  }
}

DiscoveryNode DiscoveryNode::readFrom(StreamInput& in) {
  DiscoveryNode n;
  n.name = in.readString();
  n.id = in.readString();
  n.ephemeral_id = in.readString();
  n.host_name = in.readString();
  n.host_address = in.readString();
  n.address = TransportAddress::readFrom(in);
  const int32_t attributes = in.readArraySize(2);
  for (int32_t i = 0; i < attributes; ++i) {
    std::string key = in.readString();
    // ES reads into a map: a repeated key keeps the last value.
    n.attributes[std::move(key)] = in.readString();
  }
  const int32_t roles = in.readArraySize(3);
  n.roles.reserve(in.boundedReserve(roles, 3));
  for (int32_t i = 0; i < roles; ++i) {
    DiscoveryNodeRole role;
    role.name = in.readString();
    role.abbreviation = in.readString();
    role.can_contain_data = in.readBoolean();
    n.roles.push_back(std::move(role));
  }
  n.version = TransportVersion(in.readVInt());
  if (in.transportVersion().onOrAfter(TransportVersion::V_8_10_X)) {
    n.min_index_version = in.readVInt();
    if (in.transportVersion().onOrAfter(TransportVersion::V_8_18_0))
      n.min_read_only_index_version = in.readVInt();
    n.max_index_version = in.readVInt();
  }
  if (in.transportVersion().onOrAfter(kDiscoveryNodeExternalIdVersion)) {
    n.external_id = in.readString();
  }
  return n;
}

void TransportHandshakeResponse::writeTo(StreamOutput& out) const {
  out.writeVInt(version.id());
  out.writeString(build_hash);
  node.writeTo(out);
  out.writeString(cluster_name);
}

TransportHandshakeResponse TransportHandshakeResponse::readFrom(StreamInput& in) {
  TransportHandshakeResponse r;
  r.version = TransportVersion(in.readVInt());
  r.build_hash = in.readString();
  r.node = DiscoveryNode::readFrom(in);
  r.cluster_name = in.readString();
  return r;
}

}  // namespace wirestream::transport
