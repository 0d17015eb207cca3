// Moved to stream/structured/wire_enum.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/wire_enum.h"
