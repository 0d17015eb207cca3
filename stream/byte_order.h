// deprecated: include codec/byte_order.h (names in namespace wirestream::codec)
// Forwarding header: the byte-order helpers live in codec/byte_order.h (//codec); this
// path and the names in namespace wirestream stay for existing code.
#pragma once

#include "codec/byte_order.h"

namespace wirestream {
using codec::loadBig16;
using codec::loadBig32;
using codec::loadBig64;
using codec::storeBig16;
using codec::storeBig32;
using codec::storeBig64;
using codec::storeLittle64;
}  // namespace wirestream
