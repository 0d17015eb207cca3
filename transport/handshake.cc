// Grammars (ES TaskId, TransportHandshaker, TransportService, DiscoveryNode,
// TransportAddress); one version gate at 7.17.0 and later (DiscoveryNode's
// external id, 8.3.0):
//   TaskId                      String nodeId; nodeId != "": long id
//   tcp handshake request       VInt n; n bytes: VInt version (+ ignored rest)
//   tcp handshake response      VInt version
//   transport handshake resp.   VInt version, String buildHash, DiscoveryNode,
//                               String clusterName
//   DiscoveryNode               5 x String, TransportAddress, attributes map,
//                               roles (String, String, boolean), VInt version,
//                               from 8.3.0 String externalId
//   TransportAddress            byte n, n bytes, String host, int port
#include "transport/handshake.h"

#include <arpa/inet.h>

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
  // The VInt of a positive int is 1..5 bytes; write it into a tiny buffer.
  BytesStreamOutput inner;
  inner.writeVInt(version.id());
  out.writeBytesReference(inner.bytes());
}

TcpHandshakeRequest TcpHandshakeRequest::readFrom(StreamInput& in) {
  const BytesReference wrapped = in.readBytesReference();
  BytesReferenceStreamInput inner(wrapped);
  TcpHandshakeRequest r;
  r.version = TransportVersion(inner.readVInt());
  return r;
}

void TcpHandshakeResponse::writeTo(StreamOutput& out) const { out.writeVInt(version.id()); }

TcpHandshakeResponse TcpHandshakeResponse::readFrom(StreamInput& in) {
  return TcpHandshakeResponse{TransportVersion(in.readVInt())};
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
