// deprecated: include transport/protocol/write_queue.h (names in namespace
// wirestream::transport::protocol) Forwarding header: moved to transport/protocol/write_queue.h;
// this path and the names in wirestream::transport::net stay for existing code.
#pragma once

#include "transport/protocol/write_queue.h"

namespace wirestream::transport::net {
using protocol::WriteQueue;
}  // namespace wirestream::transport::net
