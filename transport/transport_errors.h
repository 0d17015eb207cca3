// The exceptions a transport call fails with.
//
// Example (compiled: transport_errors):
//   #include "transport/transport_service.h"
//   #include "transport/zero_copy.h"
//   TransportService service;
//   std::shared_ptr<Connection> conn = service.connect("127.0.0.1", 9300);
//   auto read = [](StreamInput& in) { return in.readVLong(); };
//   try {
//     int64_t r = service.submitRequest(conn, "act", ByteArrayBody(), read).get();
//   } catch (const CircuitBreakingError& e) {  // a typed remote error
//     int64_t wanted = e.bytesWanted();
//   } catch (const RemoteTransportError& e) {  // the handler threw
//     std::string type = e.type();
//   } catch (const NodeDisconnectedError&) {  // the connection was lost
//   }
//
// Every TransportError carries an Elasticsearch-style type name
// ("illegal_argument_exception") that is what travels in an error frame: a
// handler that throws TransportError("my_type", "...") makes the caller see a
// RemoteTransportError with type() == "my_type". Error frames carry ES's
// serialized exception (remote_exception.h); the caller's RemoteTransportError
// holds it whole: the message, the cause chain, headers and metadata, and the
// typed subclasses below expose the fields of the ES classes they stand for.
// Value types; thread-safe.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wirestream::transport {

// One exception as Elasticsearch serializes it (StreamOutput.writeException):
// either an ElasticsearchException subclass, by its registry id, or one of the
// Java classes writeException special-cases (IllegalArgumentException = 6,
// IllegalStateException = 14, EOFException = 8, ...).
struct RemoteException {
  static constexpr int32_t kElasticsearch = 0;  // java_kind of a registry exception
  int32_t java_kind = kElasticsearch;
  int32_t es_id = 68;  // registry id (java_kind 0); 68 = ElasticsearchException
  std::string type;    // ES's name: "illegal_argument_exception", "exception", ...
  std::optional<std::string> message;
  std::shared_ptr<const RemoteException> cause;
  std::vector<std::shared_ptr<const RemoteException>> suppressed;
  std::map<std::string, std::vector<std::string>> headers;
  std::map<std::string, std::vector<std::string>> metadata;  // keys start with "es."
  // Fields of particular classes.
  int64_t bytes_limit = 0;            // circuit_breaking_exception
  int64_t bytes_wanted = 0;           // circuit_breaking_exception
  int32_t durability = 0;             // circuit_breaking_exception: 0 TRANSIENT, 1 PERMANENT
  int32_t max_buckets = 0;            // too_many_buckets_exception
  std::optional<std::string> action;  // action_not_found_transport_exception
  // The reader met a class whose fields it does not know (an id it has no
  // layout for): the ElasticsearchException fields were read, the rest of the
  // error body was skipped.
  bool partial = false;

  std::string messageOrEmpty() const { return message.value_or(""); }
};

class TransportError : public std::runtime_error {
 public:
  TransportError(std::string type, const std::string& message)
      : std::runtime_error(message), type_(std::move(type)) {}
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

// The remote handler failed; type() and what() are those of the handler's
// exception (ES's RemoteTransportException wrapper unwrapped).
class RemoteTransportError : public TransportError {
 public:
  // A generic remote error with this type and message.
  RemoteTransportError(std::string type, const std::string& message);
  // From what travelled: usually RemoteTransportException("[node][address]
  // [action]") around the handler's exception.
  explicit RemoteTransportError(std::shared_ptr<const RemoteException> exception);

  // What travelled, wrapper included; never null.
  const std::shared_ptr<const RemoteException>& remoteException() const { return exception_; }
  // The handler's exception (the wrapper unwrapped); never null.
  const RemoteException& cause() const { return *cause_; }
  // The wrapper's message, "[node][address][action]" (empty when unwrapped).
  std::string wrapperMessage() const;
  const std::map<std::string, std::vector<std::string>>& headers() const { return cause_->headers; }
  const std::map<std::string, std::vector<std::string>>& metadata() const {
    return cause_->metadata;
  }

 private:
  std::shared_ptr<const RemoteException> exception_;
  std::shared_ptr<const RemoteException> cause_;
};

// ES's CircuitBreakingException (id 133). Handlers may throw it too.
class CircuitBreakingError : public RemoteTransportError {
 public:
  enum class Durability : int32_t { kTransient = 0, kPermanent = 1 };
  CircuitBreakingError(const std::string& message, int64_t bytes_wanted, int64_t bytes_limit,
                       Durability durability);
  explicit CircuitBreakingError(std::shared_ptr<const RemoteException> exception)
      : RemoteTransportError(std::move(exception)) {}
  int64_t bytesWanted() const { return cause().bytes_wanted; }
  int64_t bytesLimit() const { return cause().bytes_limit; }
  Durability durability() const { return static_cast<Durability>(cause().durability); }
};

// ES's MultiBucketConsumerService.TooManyBucketsException (id 149).
class TooManyBucketsError : public RemoteTransportError {
 public:
  TooManyBucketsError(const std::string& message, int32_t max_buckets);
  explicit TooManyBucketsError(std::shared_ptr<const RemoteException> exception)
      : RemoteTransportError(std::move(exception)) {}
  int32_t maxBuckets() const { return cause().max_buckets; }
};

// ES's ActionNotFoundTransportException (id 101): no handler for action().
class ActionNotFoundError : public RemoteTransportError {
 public:
  explicit ActionNotFoundError(const std::string& action);
  explicit ActionNotFoundError(std::shared_ptr<const RemoteException> exception)
      : RemoteTransportError(std::move(exception)) {}
  std::string action() const { return cause().action.value_or(""); }
};

// Java's IllegalArgumentException / IllegalStateException from the remote
// side (std::invalid_argument / std::logic_error from a C++ handler).
class RemoteIllegalArgumentError : public RemoteTransportError {
 public:
  using RemoteTransportError::RemoteTransportError;
};
class RemoteIllegalStateError : public RemoteTransportError {
 public:
  using RemoteTransportError::RemoteTransportError;
};

// The remote node's own call failed: its connection was lost, or its request
// timed out (ES's NodeDisconnectedException 84 / ReceiveTimeoutTransportException 83).
class RemoteNodeDisconnectedError : public RemoteTransportError {
 public:
  using RemoteTransportError::RemoteTransportError;
};
class RemoteReceiveTimeoutError : public RemoteTransportError {
 public:
  using RemoteTransportError::RemoteTransportError;
};

// The RemoteTransportError subclass that stands for `exception` (unwrapped
// as ES's ExceptionsHelper.unwrapCause does), as an exception_ptr.
[[nodiscard]] std::exception_ptr remoteErrorFor(std::shared_ptr<const RemoteException> exception);

// Connecting or the handshake failed.
class ConnectTransportError : public TransportError {
 public:
  explicit ConnectTransportError(const std::string& message)
      : TransportError("connect_transport_exception", message) {}
};

// The TLS handshake with the peer failed: the peer's certificate is not
// trusted, has expired or names another host, the peer refused ours, or it
// does not speak TLS. reason() is OpenSSL's ("certificate has expired").
class TlsHandshakeError : public ConnectTransportError {
 public:
  TlsHandshakeError(const std::string& message, std::string reason)
      : ConnectTransportError(message), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// TransportOptions::tls cannot be used: a certificate, key or CA file is
// missing, is not PEM, or the key does not match the certificate or its
// passphrase. Thrown by the TransportService constructor or listen();
// file() is the offending file, also named in what().
class TlsConfigError : public TransportError {
 public:
  TlsConfigError(std::string file, const std::string& message)
      : TransportError("ssl_config_exception", message), file_(std::move(file)) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The connection closed (peer reset, garbage, shutdown) before the response.
class NodeDisconnectedError : public TransportError {
 public:
  explicit NodeDisconnectedError(const std::string& message)
      : TransportError("node_disconnected_exception", message) {}
};

// No response within the request's timeout.
class ReceiveTimeoutError : public TransportError {
 public:
  explicit ReceiveTimeoutError(const std::string& message)
      : TransportError("receive_timeout_transport_exception", message) {}
};

// The type name an error frame carries for `error`: TransportError's own
// type, else a name for the standard and stream exceptions.
std::string errorTypeOf(std::exception_ptr error);
// what() of the exception, or "unknown exception".
std::string errorMessageOf(std::exception_ptr error);

}  // namespace wirestream::transport
