// Moved to stream/structured/time_value.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/time_value.h"
