// deprecated: include transport/protocol/read_loop.h (names in namespace
// wirestream::transport::protocol) Forwarding header: moved to transport/protocol/read_loop.h; this
// path and the names in wirestream::transport::net stay for existing code.
#pragma once

#include "transport/protocol/read_loop.h"

namespace wirestream::transport::net {
using protocol::Direction;
using protocol::ProtocolError;
using protocol::ReadLoop;
}  // namespace wirestream::transport::net
