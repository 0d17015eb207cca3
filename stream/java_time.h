// deprecated: include stream/structured/java_time.h and stream/structured/structured_stream.h
// Moved to stream/structured/java_time.h (//stream/structured); this header
// forwards so that includes of the old path keep working, with the free
// readers and writers that were StreamOutput / StreamInput methods.
#pragma once

#include "stream/structured/java_time.h"
#include "stream/structured/structured_stream.h"
