// Moved to stream/structured/big_integer.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/big_integer.h"
