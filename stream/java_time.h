// Moved to stream/structured/java_time.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/java_time.h"
