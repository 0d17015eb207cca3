// Moved to tests/support/counting_allocator.h (//tests/support:counting_allocator),
// the one counting allocator the tests and //bench:alloc_bench share; this
// header forwards so that includes of the old path keep working.
#pragma once

#include "tests/support/counting_allocator.h"
