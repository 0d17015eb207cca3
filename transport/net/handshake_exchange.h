// deprecated: include transport/protocol/handshake_exchange.h (names in namespace
// wirestream::transport::protocol) Forwarding header: moved to
// transport/protocol/handshake_exchange.h; this path and the names in wirestream::transport::net
// stay for existing code.
#pragma once

#include "transport/protocol/handshake_exchange.h"

namespace wirestream::transport::net {
using protocol::agreedVersion;
using protocol::answerHandshake;
using protocol::HandshakeAnswer;
using protocol::HandshakeIdentity;
using protocol::handshakeRequestFrame;
using protocol::readHandshakeResponse;
}  // namespace wirestream::transport::net
