// deprecated: include transport/protocol/pending_calls.h (names in namespace
// wirestream::transport::protocol) Forwarding header: moved to transport/protocol/pending_calls.h;
// this path and the names in wirestream::transport::net stay for existing code.
#pragma once

#include "transport/protocol/pending_calls.h"

namespace wirestream::transport::net {
using protocol::PendingCall;
using protocol::PendingCalls;
}  // namespace wirestream::transport::net
