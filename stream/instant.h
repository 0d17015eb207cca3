// deprecated: include stream/structured/instant.h and stream/structured/structured_stream.h
// Moved to stream/structured/instant.h (//stream/structured); this header
// forwards so that includes of the old path keep working, with the free
// readers and writers that were StreamOutput / StreamInput methods.
#pragma once

#include "stream/structured/instant.h"
#include "stream/structured/structured_stream.h"
