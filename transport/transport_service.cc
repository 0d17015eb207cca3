// The Asio side of the transport: accepting, connecting, reading,
// gather-writing serialized frames, and running handlers and pending calls.
// The frame bytes themselves are built and parsed by the socket-free units
// (frame.h, frame_decoder.h, inbound_message.h); where each read lands, the
// decoding, the admission of frames and their routing with the protocol's
// rules are net::ReadLoop (net/read_loop.h), which the connection drives.
//
// Handshake (frames with status 0x08, action "internal:tcp/handshake", bodies
// in handshake.h):
//   request  header version: the sender's minimum compatible version, so that
//            any compatible peer can read it
//   response header version: the request's; body: the responder's version
//   refusal  an error response (status 0x01 | 0x02, no 0x08) at the request's
//            version, then the connection closes.
//
// Threading: each connection has a strand; its reads, timers, handshake and
// close run on it. Two things are shared with other threads and locked, each
// a unit of transport/net/: the pending calls (net::PendingCalls: callers
// register a call on their own thread before its frame can be answered; one
// deadline timer per connection) and the write queue (net::WriteQueue: the
// thread that enqueues into an idle connection sends right away with a
// non-blocking sendmsg; the strand takes over only when the kernel's buffer
// is full; what the strand itself sends while dispatching one read's frames
// goes out after the last of them, in one sendmsg). The handshake's decisions are
// net/handshake_exchange.h. Closing the socket takes fd_mu_ exclusively so no sendmsg can run on a
// closed (reused) fd number. A TLS connection (options.tls) handshakes first, on the strand, and
// then reads and writes only on the strand: an SSL object takes one operation at a time, so
// enqueueing posts the writer there (readTls, writeTls).
#include "transport/transport_service.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <cerrno>
#include <cstring>
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "stream/page_recycler.h"
#include "transport/accept_backoff.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/handshake.h"
#include "transport/inbound_budget.h"
#include "transport/inbound_message.h"
#include "transport/net/handshake_exchange.h"
#include "transport/net/pending_calls.h"
#include "transport/net/read_loop.h"
#include "transport/net/thread_annotations.h"
#include "transport/net/write_queue.h"
#include "transport/net_stream.h"
#include "transport/remote_exception.h"
#include "transport/tls.h"

namespace wirestream::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

// iovecs a sendmsg takes (Linux's IOV_MAX).
constexpr size_t kMaxIovPerCall = 1024;
// TLS records collected before they are sent in one write.
constexpr size_t kTlsFlushBytes = 256 * 1024;

std::string endpointText(const tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

// The connection whose received frames this thread is dispatching (see
// TcpConnection::enqueue), or null.
thread_local const void* t_dispatching = nullptr;

void safeFail(const TransportService::FailureCallback& on_failure, std::exception_ptr e) {
  try {
    if (on_failure) on_failure(e);
  } catch (...) {
    // A failing failure callback must not take the I/O thread down.
  }
}

}  // namespace

class TcpConnection;

class TransportService::Impl : public std::enable_shared_from_this<Impl> {
 public:
  explicit Impl(TransportOptions o) : options(std::move(o)) {
    if (!options.logger) {
      std::string node = options.node_name;
      options.logger = [node](LogLevel level, const std::string& line) {
        if (level == LogLevel::kDebug) return;
        std::cerr << "[" << node << "] " << (level == LogLevel::kWarn ? "WARN " : "INFO ") << line
                  << "\n";
      };
    }
    if (options.io_threads < 1) throw std::invalid_argument("io_threads must be at least 1");
    if (options.tls) tls_context = tls::makeContext(*options.tls);
    if (options.node_id.empty()) options.node_id = randomId();
    ephemeral_id = randomId();
    guard.emplace(io.get_executor());
    for (int i = 0; i < options.io_threads; ++i) threads.emplace_back([this] { io.run(); });
  }

  void log(LogLevel level, const std::string& line) const {
    try {
      options.logger(level, line);
    } catch (...) {
    }
  }

  void doAccept();
  void onAccepted(tcp::socket socket);
  void onAcceptError(const error_code& ec);
  void removeConnection(const std::shared_ptr<TcpConnection>& c);
  // WARN if `limiter` allows one now (appending to `line` the count it
  // suppressed), else DEBUG.
  static LogLevel limitedLevel(LogRateLimiter& limiter, std::string& line) {
    std::optional<uint64_t> suppressed = limiter.admit();
    if (!suppressed) return LogLevel::kDebug;
    line += suppressedSuffix(*suppressed);
    return LogLevel::kWarn;
  }
  void logLimited(LogRateLimiter& limiter, std::string line) const {
    const LogLevel level = limitedLevel(limiter, line);
    log(level, line);
  }
  RawRequestHandler findHandler(const std::string& action) const {
    std::shared_lock<std::shared_mutex> lock(handlers_mu);
    auto it = handlers.find(action);
    return it == handlers.end() ? RawRequestHandler() : it->second;
  }
  void stop();

  // What internal:transport/handshake answers: this node as ES describes one.
  TransportHandshakeResponse handshakeResponse() {
    TransportHandshakeResponse r;
    r.version = options.version;
    r.build_hash = options.build_hash;
    r.cluster_name = options.cluster_name;
    r.node.name = options.node_name;
    r.node.id = options.node_id;
    r.node.ephemeral_id = ephemeral_id;
    r.node.version = options.version;
    std::lock_guard<std::mutex> lock(mu);
    if (publish_address) {
      r.node.address = *publish_address;
      r.node.host_name = publish_address->host;
      r.node.host_address = publish_address->host;
    }
    return r;
  }

  // ES's UUIDs.randomBase64UUID shape: 22 URL-safe base64 characters.
  static std::string randomId() {
    static const char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::random_device device;
    std::string id(22, 'A');
    for (char& c : id) c = kAlphabet[device() % 64];
    return id;
  }

  TransportOptions options;
  std::unique_ptr<asio::ssl::context> tls_context;  // set when options.tls is
  std::string ephemeral_id;
  std::optional<TransportAddress> publish_address;  // guarded by mu; set by listen()
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::vector<std::thread> threads;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::mutex mu;
  std::unordered_set<std::shared_ptr<TcpConnection>> connections;
  bool stopped = false;
  mutable std::shared_mutex handlers_mu;
  std::unordered_map<std::string, RawRequestHandler> handlers;
  std::atomic<int64_t> next_request_id{1};

  // The node-wide limits (see TransportOptions). The acceptor, its retry
  // timer and the backoff live on accept_strand.
  asio::strand<asio::io_context::executor_type> accept_strand{asio::make_strand(io)};
  asio::steady_timer accept_timer{accept_strand};
  AcceptBackoff accept_backoff;
  size_t inbound_connections = 0;  // guarded by mu
  InboundBudget inbound_budget{options.node_inbound_budget};
  LogRateLimiter accept_log{std::chrono::seconds(1)};
  LogRateLimiter reject_log{std::chrono::seconds(1)};
  LogRateLimiter handshake_log{std::chrono::seconds(1)};
  LogRateLimiter budget_log{std::chrono::seconds(1)};
  std::atomic<uint64_t> accept_failures{0};
  std::atomic<uint64_t> rejected_connections{0};
  std::atomic<uint64_t> handshake_timeouts{0};
  std::atomic<uint64_t> refused_frames{0};
};

class TcpConnection final : public Connection,
                            public std::enable_shared_from_this<TcpConnection>,
                            private net::ReadLoop::Sink {
 public:
  using Direction = net::Direction;

  TcpConnection(std::shared_ptr<TransportService::Impl> service, tcp::socket socket,
                Direction direction)
      : service_(std::move(service)),
        stream_(std::move(socket), service_->tls_context.get()),
        socket_(stream_.socket()),
        strand_(asio::make_strand(service_->io)),
        deadline_(strand_),
        handshake_timer_(strand_),
        direction_(direction),
        loop_({.direction = direction,
               .max_frame_size = service_->options.max_frame_size,
               .version = service_->options.version,
               .minimum_compatible = service_->options.minimum_compatible_version,
               .recycler = service_->options.recycler,
               .budget = direction == Direction::kInbound ? &service_->inbound_budget : nullptr},
              *this) {
    error_code ec;
    tcp::endpoint local = socket_.local_endpoint(ec);
    tcp::endpoint remote = socket_.remote_endpoint(ec);
    description_ = (direction == Direction::kInbound ? "inbound " : "outbound ") +
                   endpointText(local) + " -> " + endpointText(remote);
    try {
      local_address_ =
          TransportAddress::fromIp(local.address().to_string(), local.port()).toString();
    } catch (const std::invalid_argument&) {
      local_address_ = endpointText(local);
    }
  }

  // An error response as ES's OutboundHandler writes it: at `version`, the
  // exception wrapped in RemoteTransportException("[node][address][action]").
  std::shared_ptr<BytesStreamOutput> errorFrame(int64_t request_id, TransportVersion version,
                                                const std::string& action,
                                                std::shared_ptr<const RemoteException> cause,
                                                const ResponseHeaders& headers = {}) {
    auto frame = std::make_shared<BytesStreamOutput>();
    const auto wrapped = wrapInRemoteTransport(service_->options.node_name, local_address_, action,
                                               std::move(cause));
    writeErrorFrame(*frame, {request_id, version, false}, *wrapped, headers);
    return frame;
  }

  void start() {
    asio::dispatch(strand_, [self = shared_from_this()] {
      self->armHandshakeTimer();  // inbound: TLS and transport handshakes within it
      if (self->stream_.isTls()) {
        self->startTls();
      } else {
        self->doRead();
      }
    });
  }

  // The host an outbound TLS connection verifies the peer's certificate
  // against (kFull); set before start().
  void setTlsPeerHost(std::string host) { tls_peer_host_ = std::move(host); }

  // OpenSSL's reason if the TLS handshake failed or the peer refused it
  // before the transport handshake completed; "" otherwise.
  std::string tlsFailure() {
    net::MutexLock lock(tls_failure_mu_);
    return tls_failure_;
  }

  TransportVersion version() const override { return loop_.version(); }
  bool isOpen() const override { return !closed_.load(); }
  void close() override { closeAsync("closed by the local node", LogLevel::kDebug); }
  void sendPing() override {
    auto frame = std::make_shared<BytesStreamOutput>();
    frame->writeBytes(kPingFrame);
    enqueue(std::move(frame));
  }
  uint64_t bytesSent() const override { return bytes_sent_.load(); }
  uint64_t bytesReceived() const override { return loop_.bytesReceived(); }
  uint64_t pingsReceived() const override { return loop_.pingsReceived(); }
  std::string description() const override { return description_; }

  Direction direction() const { return direction_; }
  TransportService::Impl& service() const { return *service_; }

  void closeAsync(std::string reason, LogLevel level) {
    asio::dispatch(strand_, [self = shared_from_this(), reason = std::move(reason), level] {
      self->closeNow(reason, level);
    });
  }

  // Sends `frame` after every frame enqueued before it; from any thread.
  // While the strand dispatches the frames one read brought, what their
  // handlers and callbacks send on this connection goes out after the last
  // of them, together (one sendmsg for a batch of responses, or of requests
  // sent from response callbacks, instead of one each).
  void enqueue(std::shared_ptr<BytesStreamOutput> frame) {
    if (closed_) return;
    if (!write_queue_.push(std::move(frame))) return;
    if (t_dispatching == this) {
      flush_after_dispatch_ = true;
      return;
    }
    drainWrites();
  }

  // Registers a call and sends its frame, on the caller's thread; the call
  // completes exactly once.
  void submit(int64_t id, std::string action, std::shared_ptr<BytesStreamOutput> frame,
              TransportService::RawResponseReader reader,
              TransportService::FailureCallback on_failure, std::chrono::milliseconds timeout,
              TransportService::ResponseHeadersCallback on_headers = nullptr,
              std::span<uint8_t> receive_buffer = {}) {
    net::PendingCall call{action,  std::move(reader),     std::move(on_failure),
                          timeout, std::move(on_headers), receive_buffer};
    switch (pending_.add(id, call, net::PendingCalls::Clock::now())) {
      case net::PendingCalls::Added::kClosed:
        safeFail(call.on_failure, std::make_exception_ptr(NodeDisconnectedError(
                                      "[" + description_ + "] is closed; cannot send [" + action +
                                      "] (" + pending_.closeReason() + ")")));
        return;
      case net::PendingCalls::Added::kArmTimer:
        // The timer is the strand's; arming is rare (see PendingCalls).
        asio::post(strand_, [weak = weak_from_this()] {
          if (auto self = weak.lock()) self->armCallTimer();
        });
        break;
      case net::PendingCalls::Added::kAdded:
        break;
    }
    enqueue(std::move(frame));
  }

  void releaseInFlight(size_t bytes) { in_flight_.fetch_sub(bytes); }

  // On the strand (the handshake's response or request is handled there).
  void completeHandshake(TransportVersion agreed) {
    loop_.completeHandshake(agreed);
    handshake_timer_.cancel();
  }

 private:
  const TransportOptions& options() const { return service_->options; }

  // The pending calls' one timer, on the strand: armed for the earliest
  // deadline; when it fires, the calls due time out and it is armed again.
  void armCallTimer() {
    const std::optional<net::PendingCalls::Clock::time_point> deadline = pending_.armedDeadline();
    if (!deadline || closed_) return;
    call_timer_.expires_at(*deadline);
    call_timer_.async_wait([weak = weak_from_this()](const error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->onCallTimer();
    });
  }

  void onCallTimer() {
    std::vector<std::pair<int64_t, net::PendingCall>> expired =
        pending_.takeExpired(net::PendingCalls::Clock::now());
    armCallTimer();
    for (auto& [id, call] : expired) {
      safeFail(call.on_failure,
               std::make_exception_ptr(ReceiveTimeoutError(
                   "[" + description_ + "][" + call.action + "] request_id [" + std::to_string(id) +
                   "] timed out after [" + std::to_string(call.timeout.count()) + "ms]")));
    }
  }

  void armHandshakeTimer() {
    const std::chrono::milliseconds timeout = options().handshake_timeout;
    if (direction_ != Direction::kInbound || timeout.count() <= 0) return;
    handshake_timer_.expires_after(timeout);
    handshake_timer_.async_wait([weak = weak_from_this()](const error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->onHandshakeTimeout();
    });
  }

  void onHandshakeTimeout() {
    if (closed_ || loop_.handshakeDone()) return;
    ++service_->handshake_timeouts;
    std::string reason = "handshake not completed within " +
                         std::to_string(options().handshake_timeout.count()) + "ms (received " +
                         std::to_string(loop_.bytesReceived()) + " bytes)";
    const LogLevel level = service_->limitedLevel(service_->handshake_log, reason);
    closeNow(reason, level);
  }

  // The node budget refused a frame (ReadLoop::admit): counted, logged at
  // most once a second, and a request answered now.
  void onRefused(const FrameHeader& h, const CircuitBreakingError& breaker, bool answer) override {
    ++service_->refused_frames;
    service_->logLimited(service_->budget_log,
                         "[" + description_ + "] refusing a frame of " +
                             std::to_string(h.frameSize()) + " bytes (request id [" +
                             std::to_string(h.request_id) + "]): " + breaker.what());
    if (answer) enqueue(errorFrame(h.request_id, version(), "", breaker.remoteException()));
  }

  void answerPing() override { sendPing(); }

  // The content of the response to a call that lent a buffer large enough
  // goes there (the call then waits for it whatever its timeout).
  std::span<uint8_t> receiveBuffer(const FrameHeader& h) override {
    return pending_.claimReceiveBuffer(h.request_id, h.contentSize());
  }

  void doRead() {
    if (closed_) return;
    if (stream_.isTls()) {
      readTls();
      return;
    }
    net::ReadLoop::Target target = loop_.nextRead();
    direct_buffers_.clear();
    for (std::span<uint8_t> s : target.buffers) direct_buffers_.emplace_back(s.data(), s.size());
    stream_.asyncReadSome(
        direct_buffers_,
        asio::bind_executor(strand_,
                            [self = shared_from_this(), direct = target.direct](
                                const error_code& ec, size_t n) { self->onRead(ec, n, direct); }));
  }

  void onRead(const error_code& ec, size_t n, bool direct) {
    if (closed_) return;
    if (ec && tls::isTlsError(ec) && ec != asio::ssl::error::stream_truncated) {
      // Garbage, a forged record, a renegotiation attempt, or (TLS 1.3) the
      // peer refusing our certificate after our side of the handshake.
      failTls("TLS read failed", ec);
      return;
    }
    if (ec) {
      bool warn = false;
      const std::string reason = loop_.closeReason(ec == asio::error::eof, ec.message(), warn);
      closeNow(reason, warn ? LogLevel::kWarn : LogLevel::kDebug);
      return;
    }
    std::optional<std::string> failure;
    const void* outer = std::exchange(t_dispatching, this);
    try {
      loop_.received(n, direct);
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      t_dispatching = outer;
      throw;
    }
    t_dispatching = outer;
    // What the frames before a bad one answered still goes out first.
    if (flush_after_dispatch_) {
      flush_after_dispatch_ = false;
      drainWrites();
    }
    if (failure) {
      closeNow(*failure, LogLevel::kWarn);
      return;
    }
    if (closed_) return;
    updateDeadline();
    doRead();
  }

  void updateDeadline() {
    switch (loop_.deadlineAfterRead()) {
      case net::ReadLoop::Deadline::kKeep:
        return;
      case net::ReadLoop::Deadline::kCancel:
        deadline_.cancel();
        return;
      case net::ReadLoop::Deadline::kArm:
        break;
    }
    deadline_.expires_after(options().read_deadline);
    deadline_.async_wait(
        [weak = weak_from_this(), start = loop_.deadlineFrameStart()](const error_code& ec) {
          if (ec) return;
          if (auto self = weak.lock()) self->onDeadline(start);
        });
  }

  void onDeadline(uint64_t start) {
    if (closed_ || !loop_.deadlineExpired(start)) return;
    closeNow(loop_.deadlineReason(options().read_deadline), LogLevel::kWarn);
  }

  void onHandshakeRequest(DecodedFrame&& frame) override {
    const InboundMessage m = InboundMessage::parse(std::move(frame), options().max_frame_size);
    net::HandshakeAnswer answer =
        net::answerHandshake(m, {options().version, options().minimum_compatible_version,
                                 options().node_name, local_address_});
    if (answer.agreed) {
      completeHandshake(*answer.agreed);
    } else {
      write_queue_.closeAfterFlush(answer.refusal);
    }
    enqueue(std::move(answer.frame));
  }

  void onVersionAdopted(TransportVersion) override { handshake_timer_.cancel(); }
  void onRequest(DecodedFrame&& frame, InboundBudget::Lease lease) override;
  void onResponse(DecodedFrame&& frame) override {
    const FrameHeader h = frame.header;
    std::optional<net::PendingCall> taken = pending_.take(h.request_id);
    if (!taken) {
      service_->log(LogLevel::kDebug,
                    "[" + description_ + "] dropping the response to request id [" +
                        std::to_string(h.request_id) + "]: no such pending request (timed out?)");
      return;
    }
    net::PendingCall& call = *taken;
    std::function<void()> complete;
    try {
      InboundMessage m = InboundMessage::parse(std::move(frame), options().max_frame_size);
      if (call.on_headers) call.on_headers(m.response_headers);
      BytesReferenceStreamInput in(m.body());
      in.setTransportVersion(h.version());
      if (h.isError()) {
        // Any registry id reads (an unknown one as a generic remote error);
        // the connection stays usable whatever the error body holds.
        std::shared_ptr<const RemoteException> remote = readException(in);
        if (!remote) {
          throw TransportError("transport_serialization_exception",
                               "error response to [" + call.action + "] without an exception");
        }
        std::rethrow_exception(remoteErrorFor(std::move(remote)));
      }
      complete = call.reader(in);
      if (in.available() != 0) {
        throw TransportError("transport_serialization_exception",
                             "Message not fully read (response) for requestId [" +
                                 std::to_string(h.request_id) + "], action [" + call.action +
                                 "], available [" + std::to_string(in.available()) + "]");
      }
    } catch (...) {
      safeFail(call.on_failure, std::current_exception());
      return;
    }
    try {
      complete();
    } catch (const std::exception& e) {
      service_->log(LogLevel::kWarn,
                    "response callback for [" + call.action + "] threw: " + e.what());
    } catch (...) {
      service_->log(LogLevel::kWarn, "response callback for [" + call.action + "] threw");
    }
  }

  // The write path. Whichever thread enqueues into an idle connection becomes
  // its writer and sends with non-blocking sendmsg right away, so a request
  // costs no hand-off to an I/O thread; when the kernel's buffer is full the
  // rest continues on the strand once the socket is writable. Only the
  // writer (see WriteQueue) touches writing_frames_ and iov_.
  void drainWrites() {
    if (stream_.isTls()) {
      // An SSL object takes one operation at a time: TLS writes run on the
      // strand, in order (writeTls).
      asio::post(strand_, [self = shared_from_this()] { self->writeTls(); });
      return;
    }
    while (true) {
      if (iov_next_ == iov_.size()) {
        writing_frames_.clear();
        iov_.clear();
        iov_next_ = 0;
        net::WriteQueue::Batch batch = write_queue_.next();
        if (batch.frames.empty()) {
          if (batch.close_reason) closeAsync(std::move(*batch.close_reason), LogLevel::kWarn);
          return;
        }
        takeBatch(std::move(batch), [this](const uint8_t* data, size_t size) {
          iov_.push_back({const_cast<uint8_t*>(data), size});
        });
      }
      ssize_t n;
      {
        // Shared with other writers' syscalls, exclusive with close: the fd
        // number cannot be closed (and reused) under a sendmsg.
        net::ReaderLock fd_lock(fd_mu_);
        if (closed_) return;
        msghdr msg{};
        msg.msg_iov = iov_.data() + iov_next_;
        msg.msg_iovlen = std::min<size_t>(iov_.size() - iov_next_, kMaxIovPerCall);
        n = ::sendmsg(socket_.native_handle(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
      }
      if (n > 0) {
        bytes_sent_ += static_cast<uint64_t>(n);
        size_t left = static_cast<size_t>(n);
        while (left > 0) {
          iovec& v = iov_[iov_next_];
          if (left >= v.iov_len) {
            left -= v.iov_len;
            ++iov_next_;
          } else {
            v.iov_base = static_cast<uint8_t*>(v.iov_base) + left;
            v.iov_len -= left;
            left = 0;
          }
        }
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        asio::post(strand_, [self = shared_from_this()] { self->waitWritable(); });
        return;
      }
      closeAsync(std::string("write failed: ") + std::strerror(n < 0 ? errno : EPIPE),
                 LogLevel::kWarn);
      return;
    }
  }

  // Makes `batch` the writer's frames, handing each piece to add_piece (the
  // frame's own pages and referenced ranges, no flattening copy).
  template <class AddPiece>
  void takeBatch(net::WriteQueue::Batch batch, AddPiece add_piece) {
    writing_frames_ = std::move(batch.frames);
    for (const std::shared_ptr<BytesStreamOutput>& frame : writing_frames_) {
      const BytesReference bytes_ref = frame->bytes();
      for (BytesReference::Piece piece : bytes_ref.pieces()) add_piece(piece.data(), piece.size());
    }
  }

  // TLS reads, on the strand: decrypts every record already received in
  // one loop, feeding onRead as the socket path does, then waits for more
  // bytes. onRead's doRead() during the loop just lets the loop go on.
  void readTls() {
    if (tls_reading_) return;
    tls_reading_ = true;
    SSL* ssl = stream_.tls().native_handle();
    while (!closed_) {
      error_code ec;
      size_t n;
      // Straight into a large frame's pages (the first that has room).
      const net::ReadLoop::Target target = loop_.nextSingleRead();
      const std::span<uint8_t> into = target.buffers.front();
      n = tls::read(ssl, into.data(), into.size(), ec);
      if (ec == asio::error::would_block) break;
      onRead(ec, n, target.direct);
    }
    tls_reading_ = false;
    if (closed_) return;
    writeTls();  // sends what reading produced, if anything
    stream_.tlsSocket().asyncFill(
        asio::bind_executor(strand_, [self = shared_from_this()](const error_code& ec, size_t) {
          if (self->closed_) return;
          if (ec) {
            self->onRead(ec, 0, false);
            return;
          }
          self->readTls();
        }));
  }

  // The TLS writer, on the strand: encrypts queued frames page by page into
  // the socket's buffer until about kTlsFlushBytes of records collected and
  // sends them in one non-blocking send; when the socket is full it goes on
  // once it is writable. Also sends what reading produced (TLS 1.3 key
  // updates). Waits for the TLS handshake (startTls resumes it).
  void writeTls() {
    if (closed_ || !tls_ready_ || tls_writing_) return;
    BufferedSocket& socket = stream_.tlsSocket();
    while (true) {
      error_code ec;
      if (socket.unsent() > 0 && !socket.trySend(ec)) {
        if (ec) {
          closeNow("write failed: " + ec.message(), LogLevel::kWarn);
          return;
        }
        tls_writing_ = true;
        socket.asyncWaitWritable(
            asio::bind_executor(strand_, [self = shared_from_this()](const error_code& wait_ec) {
              self->tls_writing_ = false;
              if (self->closed_) return;
              if (wait_ec) {
                self->closeNow("write failed: " + wait_ec.message(), LogLevel::kWarn);
                return;
              }
              self->writeTls();
            }));
        return;
      }
      if (tls_next_ == tls_buffers_.size()) {
        writing_frames_.clear();
        tls_buffers_.clear();
        tls_next_ = 0;
        net::WriteQueue::Batch batch = write_queue_.next();
        if (batch.frames.empty()) {
          if (batch.close_reason) closeNow(*batch.close_reason, LogLevel::kWarn);
          return;
        }
        takeBatch(std::move(batch), [this](const uint8_t* data, size_t size) {
          tls_buffers_.emplace_back(data, size);
        });
      }
      while (tls_next_ < tls_buffers_.size() && socket.unsent() < kTlsFlushBytes) {
        asio::const_buffer& piece = tls_buffers_[tls_next_];
        // Asio's engine enables partial writes: SSL_write takes one record
        // (16 KiB) at a time of a larger piece (a referenced body).
        const size_t n = tls::write(stream_.tls().native_handle(), piece.data(), piece.size(), ec);
        if (ec) {
          failTls("TLS write failed", ec);
          return;
        }
        bytes_sent_ += n;
        piece += n;
        if (piece.size() == 0) ++tls_next_;
      }
    }
  }

  // TLS handshake first, bounded by a deadline on the accepting side (the
  // connecting side's is connect_timeout, on its handshake call).
  void startTls() {
    SSL* ssl = stream_.tls().native_handle();
    const TlsOptions& tls_options = *options().tls;
    const bool outbound = direction_ == Direction::kOutbound;
    try {
      if (outbound) {
        tls::configureClient(ssl, tls_options, tls_peer_host_);
      } else {
        tls::configureServer(ssl, tls_options);
      }
    } catch (const std::exception& e) {
      closeNow(e.what(), LogLevel::kWarn);
      return;
    }
    // Inbound, the TLS handshake counts against handshake_timeout (armHandshakeTimer).
    stream_.tls().async_handshake(
        outbound ? asio::ssl::stream_base::client : asio::ssl::stream_base::server,
        asio::bind_executor(strand_, [self = shared_from_this()](const error_code& ec) {
          if (self->closed_) return;
          if (ec) {
            // A record header that is not TLS: most likely a plaintext peer.
            const bool plaintext = ec.category() == asio::error::get_ssl_category() &&
                                   ERR_GET_REASON(ec.value()) == SSL_R_WRONG_VERSION_NUMBER;
            self->failTls(
                plaintext ? "TLS handshake failed (a plaintext peer?)" : "TLS handshake failed",
                ec);
            return;
          }
          tls::attachBufferedSocket(self->stream_.tls().native_handle(), self->stream_.tlsSocket());
          self->tls_ready_ = true;
          self->doRead();
          self->writeTls();
        }));
  }

  // Closes with one WARN naming the peer and OpenSSL's reason; before the
  // transport handshake the reason is kept for connect() to throw.
  void failTls(const std::string& what, const error_code& ec) {
    const std::string reason = tls::failureReason(ec, stream_.tls().native_handle());
    if (!loop_.handshakeDone()) {
      net::MutexLock lock(tls_failure_mu_);
      tls_failure_ = reason;
    }
    closeNow(what + ": " + reason, LogLevel::kWarn);
  }

  void waitWritable() {
    if (closed_) return;
    socket_.async_wait(
        tcp::socket::wait_write,
        asio::bind_executor(strand_, [self = shared_from_this()](const error_code& ec) {
          if (self->closed_) return;
          if (ec) {
            self->closeNow("write failed: " + ec.message(), LogLevel::kWarn);
            return;
          }
          self->drainWrites();
        }));
  }

  void closeNow(const std::string& reason, LogLevel level) {
    if (closed_.exchange(true)) return;
    service_->log(level, "closing connection [" + description_ + "]: " + reason);
    loop_.close();
    deadline_.cancel();
    handshake_timer_.cancel();
    {
      net::WriterLock fd_lock(fd_mu_);
      error_code ignored;
      socket_.shutdown(tcp::socket::shutdown_both, ignored);
      socket_.close(ignored);
    }
    write_queue_.close();
    call_timer_.cancel();
    for (auto& [id, call] : pending_.close(reason)) {
      safeFail(call.on_failure,
               std::make_exception_ptr(NodeDisconnectedError(
                   "[" + description_ + "] disconnected before the response to [" + call.action +
                   "] request_id [" + std::to_string(id) + "]: " + reason)));
    }
    service_->removeConnection(shared_from_this());
  }

  std::shared_ptr<TransportService::Impl> service_;
  NetStream stream_;
  tcp::socket& socket_;  // stream_'s TCP socket
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer deadline_;
  asio::steady_timer handshake_timer_;
  std::string tls_peer_host_;
  bool tls_ready_ = false;                       // the strand's
  bool tls_writing_ = false;                     // the strand's: a flush is under way
  bool tls_reading_ = false;                     // the strand's: readTls is looping
  std::vector<asio::const_buffer> tls_buffers_;  // the strand's: the batch's pages
  size_t tls_next_ = 0;                          // the strand's: first page not encrypted
  const Direction direction_;
  std::string description_;
  std::string local_address_;  // "127.0.0.1:9300", as ES's NetworkAddress formats it

  net::ReadLoop loop_;                                // the strand's
  std::vector<asio::mutable_buffer> direct_buffers_;  // the strand's: loop_'s next read

  net::PendingCalls pending_;
  asio::steady_timer call_timer_{strand_};  // the strand's: see armCallTimer
  net::Mutex tls_failure_mu_;
  std::string tls_failure_ WS_GUARDED_BY(tls_failure_mu_);

  net::WriteQueue write_queue_;
  // The strand's: this thread became the writer while dispatching (enqueue).
  bool flush_after_dispatch_ = false;
  std::vector<std::shared_ptr<BytesStreamOutput>> writing_frames_;  // the writer's
  std::vector<iovec> iov_;                                          // the writer's
  size_t iov_next_ = 0;                                             // the writer's
  net::SharedMutex fd_mu_;

  std::atomic<bool> closed_{false};
  std::atomic<size_t> in_flight_{0};
  std::atomic<uint64_t> bytes_sent_{0};
};

namespace {

// The server side of one request. Answers once; dropping it unanswered sends
// an error so the caller is never left waiting.
class ChannelImpl final : public TransportChannel {
 public:
  // `compression`: the request's scheme, which its response uses too (ES).
  ChannelImpl(std::shared_ptr<TcpConnection> connection, int64_t request_id, std::string action,
              TransportVersion version, size_t reserved, InboundBudget::Lease lease,
              CompressionScheme compression = CompressionScheme::kNone,
              RequestHeaders request_headers = {})
      : connection_(std::move(connection)),
        request_id_(request_id),
        action_(std::move(action)),
        version_(version),
        reserved_(reserved),
        lease_(std::move(lease)),
        compression_(compression),
        request_headers_(std::move(request_headers)) {}

  ~ChannelImpl() override {
    if (responded_.load()) return;
    try {
      sendError("illegal_state_exception",
                "the handler of [" + action_ + "] dropped the channel without a response");
    } catch (...) {
    }
  }

  void sendResponse(const Writeable& response) override {
    claim();
    const TransportOptions& options = connection_->service().options;
    auto frame = std::make_shared<BytesStreamOutput>();
    try {
      writeResponseFrame(*frame, {request_id_, version_, false}, takeResponseHeaders(), response,
                         compression_);
      if (frame->size() > options.max_frame_size) {
        internal::throwLimitExceeded("response of " + std::to_string(frame->size()) +
                                     " bytes exceeds the maximum frame size of " +
                                     std::to_string(options.max_frame_size) + " bytes");
      }
    } catch (...) {
      frame = connection_->errorFrame(request_id_, version_, action_,
                                      exceptionFromError(std::current_exception()),
                                      takeResponseHeaders());
    }
    finish(std::move(frame));
  }

  void sendError(const std::string& type, const std::string& message) override {
    claim();
    finish(connection_->errorFrame(request_id_, version_, action_,
                                   exceptionFromTypeAndMessage(type, message),
                                   takeResponseHeaders()));
  }

  void sendException(std::exception_ptr error) override {
    claim();
    finish(connection_->errorFrame(request_id_, version_, action_, exceptionFromError(error),
                                   takeResponseHeaders()));
  }

  // For the dispatcher: answers with `error` unless a response went out.
  void failIfUnanswered(std::exception_ptr error) {
    if (responded_.load()) {
      connection_->service().log(
          LogLevel::kWarn,
          "handler of [" + action_ + "] threw after responding: " + errorMessageOf(error));
      return;
    }
    sendException(error);
  }

  const std::string& action() const override { return action_; }
  const RequestHeaders& requestHeaders() const override { return request_headers_; }
  void addResponseHeader(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(headers_mu_);
    std::vector<std::string>& values = response_headers_[key];
    // ES keeps a response header's values as a set.
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  int64_t requestId() const override { return request_id_; }
  TransportVersion version() const override { return version_; }

 private:
  void claim() {
    if (responded_.exchange(true)) {
      throw std::logic_error("request [" + std::to_string(request_id_) + "] of [" + action_ +
                             "] was already answered");
    }
  }
  ResponseHeaders takeResponseHeaders() {
    std::lock_guard<std::mutex> lock(headers_mu_);
    return std::move(response_headers_);
  }
  void finish(std::shared_ptr<BytesStreamOutput> frame) {
    connection_->releaseInFlight(reserved_);
    lease_.reset();
    connection_->enqueue(std::move(frame));
  }

  std::shared_ptr<TcpConnection> connection_;
  const int64_t request_id_;
  const std::string action_;
  const TransportVersion version_;
  const size_t reserved_;
  InboundBudget::Lease lease_;  // the node budget of the request, until answered
  const CompressionScheme compression_;
  const RequestHeaders request_headers_;
  std::mutex headers_mu_;
  ResponseHeaders response_headers_;  // guarded by headers_mu_
  std::atomic<bool> responded_{false};
};

}  // namespace

void TcpConnection::onRequest(DecodedFrame&& frame, InboundBudget::Lease lease) {
  const FrameHeader h = frame.header;
  const size_t size = h.frameSize();
  const size_t budget = options().in_flight_budget;
  const size_t before = in_flight_.fetch_add(size);
  if (before + size > budget) {
    in_flight_.fetch_sub(size);
    // As ES's in-flight-requests circuit breaker words and sends it.
    const std::string action = InboundMessage::peekAction(frame);
    const CircuitBreakingError breaker(
        inFlightBreakerMessage(action, static_cast<int64_t>(before + size),
                               static_cast<int64_t>(budget)),
        static_cast<int64_t>(before + size), static_cast<int64_t>(budget),
        CircuitBreakingError::Durability::kTransient);
    service_->log(LogLevel::kInfo, "[" + description_ + "] rejecting request id [" +
                                       std::to_string(h.request_id) + "]: " + breaker.what());
    enqueue(errorFrame(h.request_id, version(), action, breaker.remoteException()));
    return;
  }
  std::optional<InboundMessage> message;
  try {
    message.emplace(InboundMessage::parse(std::move(frame), options().max_frame_size));
  } catch (...) {
    in_flight_.fetch_sub(size);
    throw;
  }
  auto channel = std::make_shared<ChannelImpl>(shared_from_this(), h.request_id, message->action,
                                               version(), size, std::move(lease),
                                               message->compression, message->request_headers);
  TransportService::RawRequestHandler handler = service_->findHandler(message->action);
  if (!handler) {
    channel->sendException(std::make_exception_ptr(ActionNotFoundError(message->action)));
    return;
  }
  BytesReferenceStreamInput in(message->body());
  in.setTransportVersion(h.version());
  try {
    TransportService::RequestContinuation run = handler(in);
    if (in.available() != 0) {
      throw TransportError("illegal_state_exception",
                           "Message not fully read (request) for requestId [" +
                               std::to_string(h.request_id) + "], action [" + message->action +
                               "], available [" + std::to_string(in.available()) + "]; resetting");
    }
    run(channel);
  } catch (...) {
    channel->failIfUnanswered(std::current_exception());
  }
}

// The accept loop runs on accept_strand: one accept outstanding at a time.
void TransportService::Impl::doAccept() {
  acceptor->async_accept(io, [self = shared_from_this()](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !self->acceptor->is_open()) return;
    if (ec) {
      self->onAcceptError(ec);
      return;
    }
    self->accept_backoff.reset();
    self->onAccepted(std::move(socket));
    self->doAccept();
  });
}

// Out of descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM) the
// pending connection stays queued and an immediate retry fails again: wait,
// longer each time, so closing connections can free what is missing.
void TransportService::Impl::onAcceptError(const error_code& ec) {
  ++accept_failures;
  const std::chrono::milliseconds delay = accept_backoff.nextDelay();
  logLimited(accept_log, "accept failed: " + ec.message() + "; retrying in " +
                             std::to_string(delay.count()) + "ms");
  accept_timer.expires_after(delay);
  accept_timer.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec && self->acceptor->is_open()) self->doAccept();
  });
}

void TransportService::Impl::onAccepted(tcp::socket socket) {
  size_t open;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (stopped) return;
    open = inbound_connections;
  }
  error_code ignored;
  // Only this strand adds inbound connections, so the count can only fall
  // between this check and the insert below.
  if (open >= options.max_inbound_connections) {
    ++rejected_connections;
    const tcp::endpoint remote = socket.remote_endpoint(ignored);
    socket.close(ignored);
    logLimited(reject_log, "closing inbound connection from " + endpointText(remote) + ": " +
                               std::to_string(open) +
                               " inbound connections are open, the maximum "
                               "(max_inbound_connections)");
    return;
  }
  socket.set_option(tcp::no_delay(true), ignored);
  auto connection = std::make_shared<TcpConnection>(shared_from_this(), std::move(socket),
                                                    TcpConnection::Direction::kInbound);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (stopped) return;
    connections.insert(connection);
    ++inbound_connections;
  }
  connection->start();
}

void TransportService::Impl::removeConnection(const std::shared_ptr<TcpConnection>& c) {
  std::lock_guard<std::mutex> lock(mu);
  if (connections.erase(c) != 0 && c->direction() == TcpConnection::Direction::kInbound) {
    --inbound_connections;
  }
}

void TransportService::Impl::stop() {
  std::vector<std::shared_ptr<TcpConnection>> open;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (stopped) return;
    stopped = true;
    open.assign(connections.begin(), connections.end());
  }
  if (acceptor) {
    asio::post(accept_strand, [this] {
      error_code ignored;
      acceptor->close(ignored);
      accept_timer.cancel();
    });
  }
  for (auto& c : open) c->closeAsync("the node is shutting down", LogLevel::kDebug);
  guard.reset();
  for (auto& t : threads) t.join();
  threads.clear();
  std::lock_guard<std::mutex> lock(mu);
  connections.clear();
}

namespace {
struct EmptyRequest final : Writeable {
  void writeTo(StreamOutput&) const override {}
};
}  // namespace

TransportService::TransportService(TransportOptions options)
    : impl_(std::make_shared<Impl>(std::move(options))) {
  // ES's TransportService answers its handshake on every node.
  std::weak_ptr<Impl> weak = impl_;
  registerRawHandler(std::string(kTransportHandshakeAction),
                     [weak](StreamInput&) -> RequestContinuation {
                       return [weak](const std::shared_ptr<TransportChannel>& channel) {
                         auto impl = weak.lock();
                         if (!impl) throw std::logic_error("the service is stopped");
                         const TransportHandshakeResponse response = impl->handshakeResponse();
                         channel->sendResponse(BodyOf(response));
                       };
                     });
}

TransportHandshakeResponse TransportService::transportHandshake(
    const std::shared_ptr<Connection>& connection, std::chrono::milliseconds timeout) {
  return submitRequest(
             connection, kTransportHandshakeAction, EmptyRequest(),
             [](StreamInput& in) { return TransportHandshakeResponse::readFrom(in); }, timeout)
      .get();
}

TransportService::~TransportService() { stop(); }

void TransportService::stop() { impl_->stop(); }

const TransportOptions& TransportService::options() const { return impl_->options; }

TransportStats TransportService::stats() const {
  TransportStats stats;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    stats.inbound_connections = impl_->inbound_connections;
  }
  stats.inbound_bytes = impl_->inbound_budget.used();
  stats.accept_failures = impl_->accept_failures.load();
  stats.rejected_connections = impl_->rejected_connections.load();
  stats.handshake_timeouts = impl_->handshake_timeouts.load();
  stats.refused_frames = impl_->refused_frames.load();
  return stats;
}

uint16_t TransportService::listen(const std::string& host, uint16_t port) {
  if (impl_->options.tls) tls::checkCanAccept(*impl_->options.tls);
  tcp::endpoint endpoint(asio::ip::make_address(host), port);
  auto acceptor = std::make_unique<tcp::acceptor>(impl_->accept_strand);
  acceptor->open(endpoint.protocol());
  acceptor->set_option(tcp::acceptor::reuse_address(true));
  acceptor->bind(endpoint);
  acceptor->listen();
  uint16_t bound = acceptor->local_endpoint().port();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    try {
      impl_->publish_address =
          TransportAddress::fromIp(acceptor->local_endpoint().address().to_string(), bound);
    } catch (const std::invalid_argument&) {
    }
  }
  impl_->acceptor = std::move(acceptor);
  asio::post(impl_->accept_strand, [impl = impl_] { impl->doAccept(); });
  impl_->log(LogLevel::kDebug, "listening on " + host + ":" + std::to_string(bound));
  return bound;
}

void TransportService::registerRawHandler(std::string action, RawRequestHandler handler) {
  if (action.empty()) throw std::invalid_argument("action name must not be empty");
  std::unique_lock<std::shared_mutex> lock(impl_->handlers_mu);
  if (!impl_->handlers.emplace(std::move(action), std::move(handler)).second) {
    throw std::invalid_argument("a handler is already registered for this action");
  }
}

std::shared_ptr<Connection> TransportService::connect(const std::string& host, uint16_t port) {
  const std::string target = host + ":" + std::to_string(port);
  error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) throw ConnectTransportError("[" + target + "] bad address: " + ec.message());
  tcp::socket socket(impl_->io);
  socket.connect(tcp::endpoint(address, port), ec);
  if (ec) throw ConnectTransportError("[" + target + "] connect failed: " + ec.message());
  socket.set_option(tcp::no_delay(true), ec);
  auto connection = std::make_shared<TcpConnection>(impl_, std::move(socket),
                                                    TcpConnection::Direction::kOutbound);
  connection->setTlsPeerHost(host);
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) throw ConnectTransportError("[" + target + "] the service is stopped");
    impl_->connections.insert(connection);
  }
  connection->start();

  const TransportOptions& options = impl_->options;
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> handshake = done->get_future();
  const int64_t id = impl_->next_request_id++;
  auto frame = net::handshakeRequestFrame(id, options.version, options.minimum_compatible_version);
  std::weak_ptr<TcpConnection> weak = connection;
  RawResponseReader reader = [weak, done, options](StreamInput& in) -> std::function<void()> {
    const TransportVersion remote = net::readHandshakeResponse(in);
    return [weak, done, remote, local = options.version,
            minimum = options.minimum_compatible_version] {
      auto c = weak.lock();
      if (!c) return;
      try {
        c->completeHandshake(net::agreedVersion(remote, local, minimum));
      } catch (...) {
        done->set_exception(std::current_exception());
        return;
      }
      done->set_value();
    };
  };
  connection->submit(
      id, std::string(kHandshakeAction), std::move(frame), std::move(reader),
      [done](std::exception_ptr e) { done->set_exception(e); }, options.connect_timeout);
  try {
    handshake.get();
  } catch (const std::exception& e) {
    connection->close();
    std::string tls_reason = connection->tlsFailure();
    if (!tls_reason.empty()) {
      throw TlsHandshakeError("[" + target + "] TLS handshake failed: " + tls_reason, tls_reason);
    }
    throw ConnectTransportError("[" + target + "] handshake failed: " + e.what());
  }
  return connection;
}

void TransportService::sendRawRequest(const std::shared_ptr<Connection>& connection,
                                      std::string_view action, const Writeable& request,
                                      RawResponseReader reader, FailureCallback on_failure,
                                      std::chrono::milliseconds timeout,
                                      const CallContext& context) {
  auto tcp_connection = std::dynamic_pointer_cast<TcpConnection>(connection);
  if (!tcp_connection) throw std::invalid_argument("not a connection of a TransportService");
  const int64_t id = impl_->next_request_id++;
  auto frame = std::make_shared<BytesStreamOutput>();
  try {
    writeRequestFrame(
        *frame, {id, tcp_connection->version(), false}, action, context.request_headers, request,
        impl_->options.compress ? impl_->options.compression_scheme : CompressionScheme::kNone);
    if (frame->size() > impl_->options.max_frame_size) {
      internal::throwLimitExceeded("request of " + std::to_string(frame->size()) +
                                   " bytes exceeds the maximum frame size of " +
                                   std::to_string(impl_->options.max_frame_size) + " bytes");
    }
  } catch (...) {
    safeFail(on_failure, std::current_exception());
    return;
  }
  tcp_connection->submit(id, std::string(action), std::move(frame), std::move(reader),
                         std::move(on_failure), timeout, context.on_response_headers,
                         context.receive_buffer);
}

}  // namespace wirestream::transport
