// TransportService: request/response messaging between nodes over TCP
// (Boost.Asio), on the frames of wire format §9.
//
// Example (runs: transport_service):
//   using namespace std::chrono_literals;
//   struct Echo final : Writeable {
//     std::string text;
//     explicit Echo(std::string t) : text(std::move(t)) {}
//     explicit Echo(StreamInput& in) : text(in.readString()) {}
//     void writeTo(StreamOutput& out) const override { out.writeString(text); }
//   };
//   TransportService server({.node_name = "shard-0"});
//   server.registerRequestHandler(
//       "shard/echo", [](StreamInput& in) { return Echo(in); },  // reader
//       [](const Echo& r) { return Echo(r.text + "!"); });        // -> Writeable
//   uint16_t port = server.listen("127.0.0.1", 0);
//   // the other node:
//   TransportService client({.node_name = "coordinator"});
//   std::shared_ptr<Connection> conn = client.connect("127.0.0.1", port);
//   std::future<Echo> f = client.submitRequest(
//       conn, "shard/echo", Echo("hi"), [](StreamInput& in) { return Echo(in); }, 5s);
//   std::string answer = f.get().text;  // "hi!"
//
// Connections are one-directional, as in Elasticsearch: the side that
// connects sends requests and receives responses; the accepting side receives
// requests and answers them. Either side receiving the other kind of frame
// closes the connection. connect() performs the handshake: each side sends
// its TransportVersion and both use the lower one for every later frame. The
// bodies are Elasticsearch's (handshake.h, remote_exception.h,
// compression.h), so either side may be an ES 8.x node.
//
// Handlers and response callbacks run on the service's I/O threads (one
// connection's frames are handled in order, never concurrently); keep them
// short or answer later through the TransportChannel from another thread.
// A callback may send the next request itself (sendRequest / sendRawRequest
// never block: the frame goes out with a non-blocking send or is queued), so
// an asynchronous caller keeps calls in flight without waking a thread of
// its own per response; the callbacks of one connection's calls run in the
// order their responses arrive.
// Every call completes exactly once: a response, a RemoteTransportError or
// one of its typed subclasses (the handler threw; ES's serialized exception
// travelled back in an error frame), a ReceiveTimeoutError, or a
// NodeDisconnectedError.
//
// Faults are contained per connection: a frame that is not 'E' 'S', has a bad
// length or variable-header size, is larger than max_frame_size, or stalls
// for longer than read_deadline once it began to arrive closes only that
// connection, with one WARN log line. A request that would take the
// connection's in-flight bytes past in_flight_budget is answered with ES's
// CircuitBreakingException and not run.
//
// Node-wide limits keep a hostile or broken peer from exhausting the node:
// a failing accept (out of file descriptors, ...) backs off from 10 ms to 1 s
// and logs at most one WARN a second; an inbound connection past
// max_inbound_connections is closed at once; one that has not completed the
// handshake within handshake_timeout is closed; and a frame whose declared
// size would take the bytes held for inbound frames, across all connections,
// past node_inbound_budget is refused as soon as its header is in (a request
// is answered with circuit_breaking_exception, its body dropped unbuffered as
// it arrives). The WARN lines of these refusals are rate-limited to one a
// second each (the rest go to DEBUG, counted in the next WARN).
//
// With TransportOptions::tls every connection is mutual TLS (tls_options.h,
// docs/transport.md "Security"): a peer whose certificate does not verify is
// refused during the TLS handshake, with one WARN line, and only that
// connection is affected.
//
// Thread-safety: all methods are thread-safe. Lifetime: the destructor closes
// every connection (failing their pending calls) and joins the I/O threads;
// it must not run on an I/O thread. Connections and channels may outlive the
// service (they are then closed).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "stream/stream_input.h"
#include "stream/transport_version.h"
#include "stream/writeable.h"
#include "transport/compression.h"
#include "transport/frame.h"
#include "transport/handshake.h"
#include "transport/tls_options.h"
#include "transport/transport_errors.h"

namespace wirestream {
class PageRecycler;
}

namespace wirestream::transport {

enum class LogLevel { kDebug, kInfo, kWarn };

// Every member has an initializer, so that a designated initializer naming a
// few of them ({.node_name = "a"}) compiles clean under -Wextra.
struct TransportOptions {
  // Options of a node that offers an Elasticsearch release: `release` is a
  // release ("9.5.3", "8.19.21": any of TransportVersion::releases(), or up to
  // 8.7.x any release) or a plain id ("9458007"); version is its id and
  // minimum_compatible_version the oldest id that release talks to
  // (minimumCompatibleFor(): 7.17.0 for 8.x, 8841000 for 9.1 and later). The
  // handshake then follows that release's rules (handshake.h). Throws
  // std::invalid_argument for a release the table does not name.
  [[nodiscard]] static TransportOptions forRelease(const std::string& release);

  std::string node_name = "node";
  // The version this node speaks; the handshake agrees on the lower of two
  // (from 8.18 as ES settles it: negotiateHandshakeVersion in handshake.h).
  // The default is the newest supported release, TransportVersion::current()
  // (9.5.3), with that release's minimum compatible version (8841000, 8.19's
  // first id: ES 9.1 and later talk to 8.19 only), so a default node behaves as
  // an ES 9.5.3 node does. A node that talks to older peers (7.17, 8.x up to
  // 8.18) offers their line's release: forRelease("8.7.1") or
  // forRelease("8.19.21"). The constructor refuses (std::invalid_argument) a
  // version before minimum_compatible_version: setting version alone to an 8.x
  // id keeps 9.5.3's minimum.
  TransportVersion version = TransportVersion::current();
  // Oldest version a peer may have; up to 8.x the handshake request travels at
  // it (a 9.x version's at V9_HANDSHAKE_VERSION, 8800000). 7.17.0 is ES 8's.
  TransportVersion minimum_compatible_version = kV8_19FirstVersion;
  size_t max_frame_size = 100 * 1024 * 1024;
  // Time a frame may take to arrive completely once its first byte arrived.
  std::chrono::milliseconds read_deadline{30000};
  // Per inbound connection: request bytes accepted and not yet answered (a
  // compressed body counted inflated too).
  size_t in_flight_budget = 512 * 1024 * 1024;
  // Per inbound connection: requests accepted and not yet answered (what a
  // held request costs beyond its bytes: 300,000 tiny ones held 11 GiB).
  size_t max_requests_in_flight = 10000;
  // Node-wide, over every inbound connection: bytes of frames partially
  // received or received and not yet answered, each counted at its declared
  // size from the moment its header is in.
  size_t node_inbound_budget = size_t{1} << 30;
  // Per connection: bytes the frames queued to send may hold (their pages
  // and referenced ranges; Envoy's per_connection_buffer_limit_bytes). Past
  // it the connection reads nothing more from the peer until the queue
  // drains to half of it; one frame larger than it is still sent.
  size_t max_queued_outbound_bytes = 32 * 1024 * 1024;
  // A connection whose queue stays past max_queued_outbound_bytes this long
  // (the peer reads nothing) is closed.
  std::chrono::milliseconds outbound_stall_timeout{30000};
  // Inbound connections open at once; a connection past it is closed at once.
  size_t max_inbound_connections = 10000;
  // Time an inbound connection has to complete the TLS (if any) and transport
  // handshakes; zero: no limit.
  std::chrono::milliseconds handshake_timeout{10000};
  // Pages received frames are stored in; null: PageRecycler::defaultRecycler().
  // It must outlive the service. Its retained cap bounds the free pages kept
  // after a burst; the rest go back to the system.
  PageRecycler* recycler = nullptr;
  // Compress the bodies of requests this node sends (status 0x04), in
  // compression_scheme (LZ4 by default, as ES 8). Responses use the scheme
  // their request came in, compressed or not, as ES answers.
  bool compress = false;
  CompressionScheme compression_scheme = CompressionScheme::kLz4;
  int io_threads = 1;
  // connect(): the TCP connect and both handshakes, together (a peer that
  // drops SYNs fails it at this deadline, not after the kernel's retries).
  std::chrono::milliseconds connect_timeout{10000};
  // What internal:transport/handshake answers (ES's TransportService
  // handshake): the cluster name, this node's id (a random one when empty)
  // and build hash. An ES node refuses a peer of its own version whose build
  // hash differs from its own, so a node claiming ES's exact version must
  // give that build's hash.
  std::string cluster_name = "elasticsearch";
  std::string node_id{};
  std::string build_hash = "unknown";
  // Receives every log line; the default prints WARN and INFO to stderr.
  std::function<void(LogLevel, const std::string&)> logger{};
  // Mutual TLS on every connection of this node; unset = plaintext.
  std::optional<TlsOptions> tls{};
};

// Counters of the node-wide limits, for monitoring and tests.
struct TransportStats {
  size_t inbound_connections = 0;
  // Bytes held against node_inbound_budget.
  size_t inbound_bytes = 0;
  // The rest count what peers made this node refuse or close since it
  // started. Each kind logs at most one line a second (WARN; refused_requests
  // INFO) and, when it held lines back, a summary with their count and the
  // last of them; the lines held back go to the logger at kDebug.
  uint64_t accept_failures = 0;
  // Connections closed at once: max_inbound_connections was reached.
  uint64_t rejected_connections = 0;
  uint64_t handshake_timeouts = 0;
  // Frames refused because of node_inbound_budget.
  uint64_t refused_frames = 0;
  // Times a connection stopped reading: its queued answers held more than
  // max_queued_outbound_bytes (not logged).
  uint64_t read_pauses = 0;
  // Connections closed because their answers stayed queued past the cap for
  // outbound_stall_timeout.
  uint64_t stalled_connections = 0;
  // Handshakes answered with ES's refusal (an incompatible version).
  uint64_t refused_handshakes = 0;
  // TLS handshakes that failed (a refused certificate, a plaintext peer).
  uint64_t tls_handshake_failures = 0;
  // Connections whose socket or TLS session failed once up (a reset while
  // writing, a forged or renegotiating TLS record).
  uint64_t link_failures = 0;
  // Connections closed for bytes that are not ES transport or break its
  // rules (garbage first bytes, a malformed frame, a header past its caps).
  uint64_t protocol_errors = 0;
  // Connections the peer closed or reset in the middle of a frame.
  uint64_t truncated_frames = 0;
  // Connections closed because a frame was not completed within read_deadline.
  uint64_t frame_timeouts = 0;
  // Requests answered with the in-flight breaker: in_flight_budget,
  // max_requests_in_flight, or node_inbound_budget for an inflated body.
  uint64_t refused_requests = 0;
};

// One TCP connection to or from another node.
class Connection {
 public:
  virtual ~Connection() = default;
  // The version agreed in the handshake (this node's own before it).
  virtual TransportVersion version() const = 0;
  virtual bool isOpen() const = 0;
  // Closes the connection; pending calls fail with NodeDisconnectedError.
  virtual void close() = 0;
  // Sends a ping frame (45 53 FF FF FF FF); the peer counts it, and an
  // accepting side answers with a ping (ES's keep-alive).
  virtual void sendPing() = 0;
  // Frame bytes; under TLS the plaintext, not the records on the wire.
  virtual uint64_t bytesSent() const = 0;
  virtual uint64_t bytesReceived() const = 0;
  virtual uint64_t pingsReceived() const = 0;
  // "127.0.0.1:5000 -> 127.0.0.1:41234" style, for logs.
  virtual std::string description() const = 0;
};

// The way back for one request: answer it exactly once, from any thread.
class TransportChannel {
 public:
  virtual ~TransportChannel() = default;
  virtual void sendResponse(const Writeable& response) = 0;
  // Answers with an error: ES's RemoteTransportException("[node][address]
  // [action]") around an exception of this type and message.
  virtual void sendError(const std::string& type, const std::string& message) = 0;
  // The same around `error` as ES would serialize it (remote_exception.h):
  // typed errors (CircuitBreakingError, ...) keep their fields, a
  // RemoteTransportError its whole cause chain.
  virtual void sendException(std::exception_ptr error) = 0;
  void sendError(std::exception_ptr error) { sendException(std::move(error)); }
  virtual const std::string& action() const = 0;
  // The request's thread-context headers (ES's request headers).
  virtual const RequestHeaders& requestHeaders() const = 0;
  // Adds a value to a response header that travels back with the answer
  // (response or error), as ES's ThreadContext response headers; a repeated
  // value is kept once. Call before answering.
  virtual void addResponseHeader(const std::string& key, const std::string& value) = 0;
  virtual int64_t requestId() const = 0;
  virtual TransportVersion version() const = 0;
};

class TransportService {
 public:
  // Reads a request body; returns what to run once the body is known to be
  // fully consumed.
  using RequestContinuation = std::function<void(const std::shared_ptr<TransportChannel>&)>;
  using RawRequestHandler = std::function<RequestContinuation(StreamInput&)>;
  // Reads a response body; returns the callback to run once the body is known
  // to be fully consumed.
  using RawResponseReader = std::function<std::function<void()>(StreamInput&)>;
  using FailureCallback = std::function<void(std::exception_ptr)>;
  using ResponseHeadersCallback = std::function<void(const ResponseHeaders&)>;
  // Per call: thread-context request headers to send, and a callback that
  // receives the answer's response headers (on an I/O thread, before the
  // response or error callback; not called on timeout or disconnection).
  struct CallContext {
    RequestHeaders request_headers;
    ResponseHeadersCallback on_response_headers;
    // A buffer the caller owns for the answer's frame content (everything
    // after its 23-byte header: the response headers, a few bytes without
    // any, then the body), to spare a reader that wants the body in its own
    // memory the copy out of the frame's pages: when the answer's content
    // fits, the socket reads it straight into the buffer's start, and the
    // reader reads it there in place (StreamInput::readInChunk returns
    // pointers into the buffer for any length; what it keeps, such as a
    // readBytesReference(), points into the buffer without owning it).
    // An answer that does not fit, or a compressed one after it is
    // inflated, is read from pages as without a buffer. Empty: none.
    //
    // Lifetime: the buffer must stay valid, and nothing else may read or
    // write it, from the send until the call completes (its response or
    // failure callback has returned). Calls on one connection may share a
    // buffer if each reads what it needs before returning: their answers
    // arrive one at a time, each delivered before the next one starts.
    // Once an answer began to arrive into the buffer, the call's timeout no
    // longer applies: it completes when the answer is in, or fails when the
    // connection closes (options.read_deadline bounds a stalled frame). A
    // late answer to a call that timed out never touches its buffer.
    std::span<uint8_t> receive_buffer;
  };

  // TlsConfigError if options.tls names a file that cannot be used.
  explicit TransportService(TransportOptions options = {});
  ~TransportService();
  TransportService(const TransportService&) = delete;
  TransportService& operator=(const TransportService&) = delete;

  // Starts accepting connections; returns the bound port (port 0: ephemeral).
  // TlsConfigError if options.tls has no certificate to present.
  uint16_t listen(const std::string& host = "127.0.0.1", uint16_t port = 0);

  // Connects and handshakes, blocking the caller (so never call it from a
  // handler or callback on an I/O thread); ConnectTransportError on failure
  // or after options.connect_timeout (which the TCP connect, the TLS
  // handshake and the transport handshake count against together); TlsHandshakeError, one of them,
  // when TLS refused the peer or the peer refused us.
  std::shared_ptr<Connection> connect(const std::string& host, uint16_t port);

  // Handler that answers synchronously: handler(const Request&) returns a
  // Writeable response. Request = the reader's return type.
  template <class Reader, class Handler>
  void registerRequestHandler(std::string action, Reader reader, Handler handler) {
    using Request = std::invoke_result_t<Reader&, StreamInput&>;
    registerRawHandler(std::move(action),
                       [reader, handler](StreamInput& in) -> RequestContinuation {
                         auto request = std::make_shared<Request>(reader(in));
                         return [request, handler](const std::shared_ptr<TransportChannel>& ch) {
                           ch->sendResponse(handler(*request));
                         };
                       });
  }

  // Handler that answers through the channel, now or later, from any thread:
  // handler(Request&&, std::shared_ptr<TransportChannel>).
  template <class Reader, class Handler>
  void registerAsyncRequestHandler(std::string action, Reader reader, Handler handler) {
    using Request = std::invoke_result_t<Reader&, StreamInput&>;
    registerRawHandler(std::move(action),
                       [reader, handler](StreamInput& in) -> RequestContinuation {
                         auto request = std::make_shared<Request>(reader(in));
                         return [request, handler](const std::shared_ptr<TransportChannel>& ch) {
                           handler(std::move(*request), ch);
                         };
                       });
  }

  void registerRawHandler(std::string action, RawRequestHandler handler);

  // Sends `request` and calls on_response(Response) or on_failure(error)
  // exactly once, on an I/O thread. A timeout of zero waits forever.
  template <class Reader, class OnResponse>
  void sendRequest(const std::shared_ptr<Connection>& connection, std::string_view action,
                   const Writeable& request, Reader reader, OnResponse on_response,
                   FailureCallback on_failure,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(0),
                   const CallContext& context = {}) {
    using Response = std::invoke_result_t<Reader&, StreamInput&>;
    sendRawRequest(
        connection, action, request,
        [reader, on_response](StreamInput& in) -> std::function<void()> {
          auto response = std::make_shared<Response>(reader(in));
          return [response, on_response] { on_response(std::move(*response)); };
        },
        std::move(on_failure), timeout, context);
  }

  // sendRequest with a future.
  template <class Reader>
  [[nodiscard]] auto submitRequest(const std::shared_ptr<Connection>& connection,
                                   std::string_view action, const Writeable& request, Reader reader,
                                   std::chrono::milliseconds timeout = std::chrono::milliseconds(0),
                                   const CallContext& context = {})
      -> std::future<std::invoke_result_t<Reader&, StreamInput&>> {
    using Response = std::invoke_result_t<Reader&, StreamInput&>;
    auto promise = std::make_shared<std::promise<Response>>();
    auto future = promise->get_future();
    sendRequest(
        connection, action, request, std::move(reader),
        [promise](Response&& r) { promise->set_value(std::move(r)); },
        [promise](std::exception_ptr e) { promise->set_exception(e); }, timeout, context);
    return future;
  }

  void sendRawRequest(const std::shared_ptr<Connection>& connection, std::string_view action,
                      const Writeable& request, RawResponseReader reader,
                      FailureCallback on_failure, std::chrono::milliseconds timeout,
                      const CallContext& context = {});

  // ES's second handshake (internal:transport/handshake), which an ES node
  // sends right after connecting: returns the peer's version, build hash,
  // DiscoveryNode and cluster name. Every service answers it; blocking, like
  // connect(). Throws what the call failed with.
  TransportHandshakeResponse transportHandshake(const std::shared_ptr<Connection>& connection,
                                                std::chrono::milliseconds timeout);

  const TransportOptions& options() const;
  TransportStats stats() const;
  // Closes every connection and stops the I/O threads (the destructor does).
  void stop();

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace wirestream::transport
