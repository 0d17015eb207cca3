// Moved to stream/structured/named_writeable_registry.h (//stream/structured); this header
// forwards so that includes of the old path keep working.
#pragma once

#include "stream/structured/named_writeable_registry.h"
