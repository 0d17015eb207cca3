// deprecated: include stream/structured/generic_value.h and stream/structured/structured_stream.h
// Moved to stream/structured/generic_value.h (//stream/structured); this header
// forwards so that includes of the old path keep working, with the free
// readers and writers that were StreamOutput / StreamInput methods.
#pragma once

#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
