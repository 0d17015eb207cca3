#include "transport/transport_errors.h"

#include <new>

#include "stream/errors.h"

namespace wirestream::transport {

std::string errorTypeOf(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const TransportError& e) {
    return e.type();
  } catch (const EndOfStreamError&) {
    return "eof_exception";
  } catch (const CorruptStreamError&) {
    return "stream_corrupted_exception";
  } catch (const LimitExceededError&) {
    return "limit_exceeded_exception";
  } catch (const std::invalid_argument&) {
    return "illegal_argument_exception";
  } catch (const std::bad_alloc&) {
    return "out_of_memory_error";
  } catch (const std::logic_error&) {
    return "illegal_state_exception";
  } catch (const std::exception&) {
    return "exception";
  } catch (...) {
    return "exception";
  }
}

std::string errorMessageOf(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace wirestream::transport
