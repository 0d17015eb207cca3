// Moved to stream/structured/instant.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/instant.h"
