// Elasticsearch's exception serialization (StreamOutput.writeException /
// readException, ElasticsearchException.writeTo and its registry ids), the
// body of every error response.
//
// Example (runs: remote_exception):
//   #include "stream/bytes_stream_output.h"
//   #include "transport/transport_errors.h"
//   std::shared_ptr<const RemoteException> e;
//   try {
//     throw std::invalid_argument("bad size");  // what a handler threw
//   } catch (...) {
//     e = exceptionFromError(std::current_exception());  // IllegalArgumentException
//   }
//   BytesStreamOutput out;
//   auto wrapped = wrapInRemoteTransport("node-1", "127.0.0.1:9300", "shard/search", e);
//   writeException(out, wrapped.get());
//   BytesReferenceStreamInput in(out.bytes());
//   std::shared_ptr<const RemoteException> back = readException(in);
//   std::exception_ptr error = remoteErrorFor(back);  // RemoteTransportError, or a typed one
//                                                     // (CircuitBreakingError, ...) to rethrow
//
// Stateless functions; thread-safe. readException takes untrusted input.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/transport_version.h"
#include "transport/transport_errors.h"

namespace wirestream::transport {

// Writes `e` as ES's writeException does (null: one 00 byte). Registry ids
// whose fields this writer knows (ElasticsearchException 68, TransportException
// 34, ActionTransportException 20, ConnectTransportException 12,
// ReceiveTimeout 83, NodeDisconnected 84, AggregationExecution 86,
// ActionNotFound 101, TransportSerialization 102, RemoteTransport 103,
// CircuitBreaking 133, TooManyBuckets 149, NotSerializableExceptionWrapper 62)
// go by id; any other id, and the Java kinds other than the plain
// message(+cause) ones, go as ES writes an exception it cannot serialize: a
// NotSerializableExceptionWrapper named after the type. No stack frames are
// written. Nesting deeper than ES's 100 levels is cut, as ES cuts it, with an
// IllegalStateException "too many nested exceptions". Invalid UTF-8 in
// messages is replaced by '?' (an error must always be sendable).
void writeException(StreamOutput& out, const RemoteException* e);

// Reads what writeException wrote (nullptr for 00). Every ES registry id reads:
// those with known fields fully, any other (or an id no ES release has)
// with its ElasticsearchException fields and partial = true, the rest of the
// body unread; the type is ES's name for the id, or "exception". A Java kind
// beyond ES's 18 reads as a partial "exception" too. Stack traces are read and
// dropped. Nesting (causes, suppressed) beyond the input's maxNestingDepth()
// -> LimitExceededError; truncation -> EndOfStreamError; bad booleans/strings
// -> CorruptStreamError.
[[nodiscard]] std::shared_ptr<const RemoteException> readException(StreamInput& in);

// ES's name for a registry id ("circuit_breaking_exception"), or "" if no ES
// release from 7.10 to 9.5 has such an id. An id ES gave two classes (185:
// search_context_missing_nodes_exception on the 8.19 line from 8841085,
// no_matching_project_exception from 9.x's 9178000) gives the newest here.
std::string_view esExceptionName(int32_t id);
// The same at a stream's TransportVersion: the class the id names at that
// version (185 from an 8.19 peer is search_context_missing_nodes_exception).
// readException names ids this way. As in ES, which reads any id it knows, an
// id read below its gate (ES would not write it there) still has its name.
std::string_view esExceptionName(int32_t id, TransportVersion version);

// The ES exception for a C++ error a handler threw: RemoteTransportError (and
// its subclasses) as they travelled, std::invalid_argument ->
// IllegalArgumentException, std::logic_error -> IllegalStateException,
// EndOfStreamError -> EOFException, a TransportError by its type (ES types
// whose fields are known by id, others wrapped), anything else wrapped under
// errorTypeOf's name.
[[nodiscard]] std::shared_ptr<const RemoteException> exceptionFromError(std::exception_ptr error);
// The same for a bare type and message (TransportChannel::sendError).
[[nodiscard]] std::shared_ptr<const RemoteException> exceptionFromTypeAndMessage(
    const std::string& type, const std::string& message);

// ES's RemoteTransportException (103) as OutboundHandler.sendErrorResponse
// builds it: message "[node][address][action]", cause `cause`.
[[nodiscard]] std::shared_ptr<const RemoteException> wrapInRemoteTransport(
    const std::string& node_name, const std::string& address, const std::string& action,
    std::shared_ptr<const RemoteException> cause);

// ES's ByteSizeValue.toString(): "512b", "1kb", "1.5mb" (one decimal, cut, not rounded).
std::string humanBytes(int64_t bytes);
// The in-flight-requests breaker's message, as ES's ChildMemoryCircuitBreaker words it.
std::string inFlightBreakerMessage(const std::string& label, int64_t wanted, int64_t limit);

}  // namespace wirestream::transport
