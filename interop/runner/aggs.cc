// The "aggs" requests of runner.h. TODO (owned by its helper).
#include <stdexcept>

#include "interop/runner/runner.h"

namespace wirestream::interop {

Json runAggs(const Json& request) {
  (void)request;
  throw std::logic_error("aggs: not written yet");
}

}  // namespace wirestream::interop
