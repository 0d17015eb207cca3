// deprecated: include transport/thread_annotations.h (names in namespace wirestream::transport)
// Forwarding header: moved to transport/thread_annotations.h, shared by transport/net/
// and transport/protocol/; this path and the names in wirestream::transport::net stay.
#pragma once

#include "transport/thread_annotations.h"

namespace wirestream::transport::net {
using transport::Mutex;
using transport::MutexLock;
using transport::ReaderLock;
using transport::SharedMutex;
using transport::WriterLock;
}  // namespace wirestream::transport::net
