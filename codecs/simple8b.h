// deprecated: include "tsm/simple8b.h". The TSM block codecs moved from codecs/ to tsm/
// (0.x: codec/ and codecs/ differed by one letter); this forwarding header stays for code
// written against the old path and goes away in the next major version.
#pragma once

#include "tsm/simple8b.h"  // IWYU pragma: export
