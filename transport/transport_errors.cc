#include "transport/transport_errors.h"

#include <new>

#include "stream/errors.h"

namespace wirestream::transport {

namespace {

// ES's ElasticsearchWrapperException classes that travel: RemoteTransportException
// (103) and SendRequestTransportException (58).
bool isWrapper(const RemoteException& e) {
  return e.java_kind == RemoteException::kElasticsearch && (e.es_id == 103 || e.es_id == 58);
}

std::shared_ptr<const RemoteException> unwrap(std::shared_ptr<const RemoteException> e) {
  // Bounded by the reader's nesting limit; the loop also stops at a self-cycle.
  while (isWrapper(*e) && e->cause && e->cause != e) e = e->cause;
  return e;
}

// NotSerializableExceptionWrapper (62) messages read "type: message".
std::string displayMessage(const RemoteException& e) {
  std::string m = e.messageOrEmpty();
  if (e.java_kind == RemoteException::kElasticsearch && e.es_id == 62) {
    const std::string prefix = e.type + ": ";
    if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  }
  return m;
}

std::shared_ptr<const RemoteException> generic(std::string type, const std::string& message) {
  auto e = std::make_shared<RemoteException>();
  e->es_id = 62;
  e->message = type + ": " + message;
  e->type = std::move(type);
  return e;
}

std::shared_ptr<const RemoteException> nonNull(std::shared_ptr<const RemoteException> e) {
  if (!e) throw std::invalid_argument("a remote error needs an exception");
  return e;
}

}  // namespace

RemoteTransportError::RemoteTransportError(std::string type, const std::string& message)
    : RemoteTransportError(generic(std::move(type), message)) {}

RemoteTransportError::RemoteTransportError(std::shared_ptr<const RemoteException> exception)
    : TransportError(unwrap(nonNull(exception))->type, displayMessage(*unwrap(exception))),
      exception_(std::move(exception)),
      cause_(unwrap(exception_)) {}

std::string RemoteTransportError::wrapperMessage() const {
  return exception_ == cause_ ? std::string() : exception_->messageOrEmpty();
}

CircuitBreakingError::CircuitBreakingError(const std::string& message, int64_t bytes_wanted,
                                           int64_t bytes_limit, Durability durability)
    : RemoteTransportError([&] {
        auto e = std::make_shared<RemoteException>();
        e->es_id = 133;
        e->type = "circuit_breaking_exception";
        e->message = message;
        e->bytes_wanted = bytes_wanted;
        e->bytes_limit = bytes_limit;
        e->durability = static_cast<int32_t>(durability);
        return std::shared_ptr<const RemoteException>(std::move(e));
      }()) {}

TooManyBucketsError::TooManyBucketsError(const std::string& message, int32_t max_buckets)
    : RemoteTransportError([&] {
        auto e = std::make_shared<RemoteException>();
        e->es_id = 149;
        e->type = "too_many_buckets_exception";
        e->message = message;
        e->max_buckets = max_buckets;
        return std::shared_ptr<const RemoteException>(std::move(e));
      }()) {}

ActionNotFoundError::ActionNotFoundError(const std::string& action)
    : RemoteTransportError([&] {
        auto e = std::make_shared<RemoteException>();
        e->es_id = 101;
        e->type = "action_not_found_transport_exception";
        e->message = "No handler for action [" + action + "]";
        e->action = action;
        return std::shared_ptr<const RemoteException>(std::move(e));
      }()) {}

std::exception_ptr remoteErrorFor(std::shared_ptr<const RemoteException> exception) {
  const RemoteException& c = *unwrap(nonNull(exception));
  if (c.java_kind == 6) return std::make_exception_ptr(RemoteIllegalArgumentError(exception));
  if (c.java_kind == 14) return std::make_exception_ptr(RemoteIllegalStateError(exception));
  if (c.java_kind == RemoteException::kElasticsearch) {
    switch (c.es_id) {
      case 133:
        return std::make_exception_ptr(CircuitBreakingError(exception));
      case 149:
        return std::make_exception_ptr(TooManyBucketsError(exception));
      case 101:
        return std::make_exception_ptr(ActionNotFoundError(exception));
      case 84:
        return std::make_exception_ptr(RemoteNodeDisconnectedError(exception));
      case 83:
        return std::make_exception_ptr(RemoteReceiveTimeoutError(exception));
      default:
        break;
    }
  }
  return std::make_exception_ptr(RemoteTransportError(std::move(exception)));
}

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
