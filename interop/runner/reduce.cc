// The "reduce" requests of runner.h. TODO (owned by its helper).
#include <stdexcept>

#include "interop/runner/runner.h"

namespace wirestream::interop {

Json runReduce(const Json& request) {
  (void)request;
  throw std::logic_error("reduce: not written yet");
}

}  // namespace wirestream::interop
