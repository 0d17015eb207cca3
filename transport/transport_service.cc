// The service: accepting (with its node-wide limits), connecting, and the
// connections, each the glue (TcpConnection) between a byte link
// (transport/net/: the socket or TLS, and their pumps) and the protocol
// units above it (transport/protocol/: ReadLoop, WriteQueue, OutboundCalls
// over PendingCalls, InboundSession, the handshake's steps). The frame bytes
// themselves are built and parsed by frame.h, frame_decoder.h and
// inbound_message.h.
//
// Handshake (frames with status 0x08, action "internal:tcp/handshake", bodies
// in handshake.h):
//   request  header version: the sender's minimum compatible version, so that
//            any compatible peer can read it
//   response header version: the request's; body: the responder's version
//   refusal  an error response (status 0x01 | 0x02, no 0x08) at the request's
//            version, then the connection closes.
//
// Threading: each connection has a strand; its reads, timers, handshakes and
// close run on it. Shared with other threads, and locked inside their units:
// the calls (callers register one on their own thread before its frame can be
// answered; one deadline timer per connection) and the write queue (the
// thread whose push finds no writer sends at once through the link; see
// byte_link.h for where each kind of link continues). What the strand sends
// while dispatching one read's frames goes out after the last of them.
#include "transport/transport_service.h"

#include <algorithm>
#include <atomic>
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "transport/accept_backoff.h"
#include "transport/frame.h"
#include "transport/handshake.h"
#include "transport/inbound_budget.h"
#include "transport/inbound_message.h"
#include "transport/net/byte_link.h"
#include "transport/peer_events.h"
#include "transport/protocol/handshake_exchange.h"
#include "transport/protocol/inbound_session.h"
#include "transport/protocol/outbound_calls.h"
#include "transport/protocol/read_loop.h"
#include "transport/protocol/write_queue.h"
#include "transport/tls.h"

namespace wirestream::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

std::string endpointText(const tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

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
    if (options.version.before(options.minimum_compatible_version)) {
      throw std::invalid_argument("minimum_compatible_version [" +
                                  options.minimum_compatible_version.toString() +
                                  "] is after version [" + options.version.toString() +
                                  "]: offer an older release with TransportOptions::forRelease");
    }
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
  // Counts an event a peer caused and gives the level to log `line` at: its
  // kind's (WARN; INFO for refused requests) at most once a second, kDebug
  // for the rest, which a summary line counts an interval later.
  static LogLevel eventLevel(PeerEvent kind) {
    return kind == PeerEvent::kRefusedRequest ? LogLevel::kInfo : LogLevel::kWarn;
  }
  LogLevel noteEvent(PeerEvent kind, std::string& line) {
    if (events.note(kind, line)) return eventLevel(kind);
    armSummary();
    return LogLevel::kDebug;
  }
  void logEvent(PeerEvent kind, std::string line) {
    const LogLevel level = noteEvent(kind, line);
    log(level, line);
  }
  void armSummary();
  void logSummaries();
  RawRequestHandler findHandler(const std::string& action) const {
    std::shared_lock<std::shared_mutex> lock(handlers_mu);
    auto it = handlers.find(action);
    return it == handlers.end() ? RawRequestHandler() : it->second;
  }
  void stop();

  // What internal:transport/handshake answers: this node as ES describes one.
  TransportHandshakeResponse handshakeResponse() {
    TransportHandshakeResponse r;
    // ES's Version (the release), which up to 8.8.1 is the TransportVersion.
    const TransportVersion release(releaseVersionIdOf(options.version));
    r.version = release;
    r.build_hash = options.build_hash;
    r.cluster_name = options.cluster_name;
    r.node.name = options.node_name;
    r.node.id = options.node_id;
    r.node.ephemeral_id = ephemeral_id;
    r.node.version = release;
    const IndexVersions index = indexVersionsOf(options.version);
    r.node.min_index_version = index.min_compatible;
    r.node.min_read_only_index_version = index.min_read_only;
    r.node.max_index_version = index.max;
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
  std::atomic<uint64_t> read_pauses{0};
  // What peers made this node refuse or close (TransportStats), and the
  // timer of the summary lines, on its own strand.
  PeerEvents events;
  asio::strand<asio::io_context::executor_type> summary_strand{asio::make_strand(io)};
  asio::steady_timer summary_timer{summary_strand};
  std::atomic<bool> summary_armed{false};
  bool summaries_stopped = false;  // on summary_strand
};

// One TCP connection: the glue between its byte link (transport/net/: a
// plain socket or TLS, with their pumps) and the protocol above it
// (transport/protocol/: the read loop the link feeds, the write queue it
// drains, the calls this side sent, the requests it serves, the handshake's
// steps). What is left here: the strand's timers (read deadline, handshake
// timeout, call deadlines), the order of closing, and the rule that what
// the strand sends while dispatching one read's frames goes out after the
// last of them, together (one sendmsg for a batch of responses).
class TcpConnection final : public Connection,
                            public std::enable_shared_from_this<TcpConnection>,
                            private net::ByteLink::Owner,
                            private protocol::ReadLoop::Sink,
                            private protocol::InboundSession::Host {
 public:
  using Direction = protocol::Direction;

  // `tls_peer_host`: outbound TLS verifies the peer's certificate against it.
  TcpConnection(std::shared_ptr<TransportService::Impl> service, tcp::socket socket,
                Direction direction, const std::string& tls_peer_host = "",
                std::optional<tcp::endpoint> peer = std::nullopt)
      : service_(std::move(service)),
        strand_(asio::make_strand(service_->io)),
        direction_(direction),
        description_(describe(socket, direction, peer)),
        link_(net::makeByteLink(std::move(socket), strand_, *this,
                                tlsSettings(*service_, direction, tls_peer_host))),
        loop_({.direction = direction,
               .max_frame_size = options().max_frame_size,
               .version = options().version,
               .minimum_compatible = options().minimum_compatible_version,
               .recycler = options().recycler,
               .budget = nodeBudget()},
              *this),
        calls_(description_, options().max_frame_size,
               [impl = service_.get()](bool warn, const std::string& line) {
                 impl->log(warn ? LogLevel::kWarn : LogLevel::kDebug, line);
               }),
        inbound_(
            {.node_name = options().node_name,
             .local_address = localAddress(link_->socket()),
             .description = description_,
             .max_frame_size = options().max_frame_size,
             .in_flight_budget = options().in_flight_budget,
             .max_requests_in_flight = options().max_requests_in_flight,
             .budget = nodeBudget(),
             .find_handler = [impl = service_.get()](
                                 const std::string& action) { return impl->findHandler(action); }},
            *this) {}

  // What an inbound connection's frames are charged to (an outbound one's
  // answers are this node's own calls: not charged).
  InboundBudget* nodeBudget() const {
    return direction_ == Direction::kInbound ? &service_->inbound_budget : nullptr;
  }

  void start() {
    asio::dispatch(strand_, [self = shared_from_this()] {
      self->armHandshakeTimer();  // inbound: TLS and transport handshakes within it
      self->link_->start();
    });
  }

  // OpenSSL's reason if the TLS handshake failed or the peer refused it; ""
  // otherwise.
  std::string tlsFailure() const { return link_->tlsFailure(); }

  TransportVersion version() const override { return loop_.version(); }
  bool isOpen() const override { return !closed_.load(); }
  void close() override { closeAsync("closed by the local node", LogLevel::kDebug); }
  void sendPing() override { enqueue(pingFrame()); }
  uint64_t bytesSent() const override { return link_->bytesSent(); }
  uint64_t bytesReceived() const override { return loop_.bytesReceived(); }
  uint64_t pingsReceived() const override { return loop_.pingsReceived(); }
  std::string description() const override { return description_; }

  Direction direction() const { return direction_; }

  // `event`: what the peer did, counted and rate-limited (noteEvent) when
  // this is the close that happens.
  void closeAsync(std::string reason, LogLevel level,
                  std::optional<PeerEvent> event = std::nullopt) {
    asio::dispatch(strand_, [self = shared_from_this(), reason = std::move(reason), level, event] {
      self->closeNow(reason, level, event);
    });
  }

  // Sends `frame` after every frame enqueued before it; from any thread.
  void enqueue(std::shared_ptr<BytesStreamOutput> frame) {
    if (closed_) return;
    if (!write_queue_.push(std::move(frame))) return;  // another thread is the writer
    if (dispatching_.load() == std::this_thread::get_id()) {
      flush_after_dispatch_ = true;  // see onReceived
      return;
    }
    link_->flush();
  }

  // Registers a call and sends its frame, on the caller's thread; the call
  // completes exactly once.
  void submit(int64_t id, protocol::PendingCall call, std::shared_ptr<BytesStreamOutput> frame) {
    switch (calls_.submit(id, std::move(call))) {
      case protocol::PendingCalls::Added::kClosed:
        return;
      case protocol::PendingCalls::Added::kArmTimer:
        // The timer is the strand's; arming is rare (see PendingCalls).
        asio::post(strand_, [weak = weak_from_this()] {
          if (auto self = weak.lock()) self->armCallTimer();
        });
        break;
      case protocol::PendingCalls::Added::kAdded:
        break;
    }
    enqueue(std::move(frame));
  }

  // On the strand (the handshake's response or request is handled there).
  void completeHandshake(TransportVersion agreed) {
    loop_.completeHandshake(agreed);
    handshake_timer_.cancel();
  }

 private:
  const TransportOptions& options() const { return service_->options; }

  // Every ping shares one frame (never written again), not a page each.
  static const std::shared_ptr<BytesStreamOutput>& pingFrame() {
    static const auto* frame = new std::shared_ptr<BytesStreamOutput>([] {
      auto f = std::make_shared<BytesStreamOutput>();
      f->writeBytes(kPingFrame);
      return f;
    }());
    return *frame;
  }

  // `peer`: the address connected to, which a peer that reset at once no
  // longer reports (remote_endpoint fails: "0.0.0.0:0").
  static std::string describe(const tcp::socket& socket, Direction direction,
                              const std::optional<tcp::endpoint>& peer) {
    error_code ec;
    tcp::endpoint remote = socket.remote_endpoint(ec);
    if (ec && peer) remote = *peer;
    return (direction == Direction::kInbound ? "inbound " : "outbound ") +
           endpointText(socket.local_endpoint(ec)) + " -> " + endpointText(remote);
  }
  // As ES's NetworkAddress formats it: "127.0.0.1:9300".
  static std::string localAddress(const tcp::socket& socket) {
    error_code ec;
    const tcp::endpoint local = socket.local_endpoint(ec);
    try {
      return TransportAddress::fromIp(local.address().to_string(), local.port()).toString();
    } catch (const std::invalid_argument&) {
      return endpointText(local);
    }
  }
  static std::optional<net::TlsLinkSettings> tlsSettings(TransportService::Impl& service,
                                                         Direction direction,
                                                         const std::string& peer_host) {
    if (!service.tls_context) return std::nullopt;
    return net::TlsLinkSettings{.context = service.tls_context.get(),
                                .options = &*service.options.tls,
                                .client = direction == Direction::kOutbound,
                                .peer_host = peer_host};
  }

  // ByteLink::Owner: the link's reads feed the loop, its writer drains the queue.
  std::vector<std::span<uint8_t>> nextRead(bool single) override {
    protocol::ReadLoop::Target target = single ? loop_.nextSingleRead() : loop_.nextRead();
    read_direct_ = target.direct;
    return std::move(target.buffers);
  }

  // Dispatches the frames one read completed. What their handlers and
  // callbacks send on this connection meanwhile goes out after the last of
  // them (enqueue), even when a frame after them is bad. False (the link
  // stops reading): the answers queued for the peer hold more than
  // max_queued_outbound_bytes (see keepReading).
  bool onReceived(size_t n) override {
    if (closed_) return false;
    std::optional<std::string> failure;
    dispatching_ = std::this_thread::get_id();
    try {
      loop_.received(n, read_direct_);
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      dispatching_ = std::thread::id();
      throw;
    }
    dispatching_ = std::thread::id();
    if (flush_after_dispatch_) {
      flush_after_dispatch_ = false;
      link_->flush();
    }
    if (failure) {
      closeNow(*failure, LogLevel::kWarn, PeerEvent::kProtocolError);
      return false;
    }
    if (closed_) return false;
    updateDeadline();
    return keepReading();
  }

  // Backpressure (inbound connections, where what the peer sends makes
  // answers): while the answers queued for the peer hold more than
  // max_queued_outbound_bytes, its requests wait (deferred_, at most what
  // one read brought) and nothing more is read from it; when the queue has
  // drained to half the cap (the writer sees it: resumeReadingIfDrained)
  // they are served and reading goes on. A peer that stays past the cap for
  // outbound_stall_timeout is closed. True: keep reading.
  bool keepReading() {
    if (deferred_.empty() && !overCap()) return true;
    ++service_->read_pauses;
    stopReading();
    return false;
  }
  bool overCap() const {
    return direction_ == Direction::kInbound &&
           write_queue_.queuedBytes() > options().max_queued_outbound_bytes;
  }
  // On the strand: the link reads nothing until onResume. The flag and the
  // queue's count are sequentially consistent, so of this check and the
  // writer's, one sees the other: no pause is left without a resume.
  void stopReading() {
    reading_stopped_ = true;
    stall_timer_.expires_after(options().outbound_stall_timeout);
    stall_timer_.async_wait([weak = weak_from_this()](const error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->onStalled();
    });
    reading_paused_ = true;
    resumeReadingIfDrained();
  }
  // The writer's side (any thread), after each batch.
  void resumeReadingIfDrained() {
    if (!reading_paused_.load()) return;
    if (write_queue_.queuedBytes() > options().max_queued_outbound_bytes / 2) return;
    if (!reading_paused_.exchange(false)) return;
    // Posted: the TLS writer runs on the strand, inside the link's pump.
    asio::post(strand_, [self = shared_from_this()] { self->onResume(); });
  }
  void onResume() {
    if (closed_) return;
    try {
      while (!deferred_.empty()) {
        if (overCap()) {
          stopReading();
          return;
        }
        Deferred d = std::move(deferred_.front());
        deferred_.pop_front();
        serve(std::move(d.frame), std::move(d.lease));
        if (closed_) return;
      }
    } catch (const std::exception& e) {
      closeNow(e.what(), LogLevel::kWarn, PeerEvent::kProtocolError);
      return;
    }
    stall_timer_.cancel();
    reading_stopped_ = false;
    link_->resume();
  }
  void onStalled() {
    if (closed_ || !reading_stopped_) return;
    std::string reason =
        "the peer did not read its answers: " + std::to_string(write_queue_.queuedBytes()) +
        " bytes queued after " + std::to_string(options().outbound_stall_timeout.count()) +
        "ms past max_queued_outbound_bytes [" +
        std::to_string(options().max_queued_outbound_bytes) + "]";
    closeNow(reason, LogLevel::kWarn, PeerEvent::kStalledConnection);
  }

  void onReadEnded(bool eof, const std::string& error) override {
    bool warn = false;
    const std::string reason = loop_.closeReason(eof, error, warn);
    if (warn) {
      closeNow(reason, LogLevel::kWarn, PeerEvent::kTruncatedFrame);
    } else {
      closeNow(reason, LogLevel::kDebug);
    }
  }

  void onLinkFailed(net::ByteLink::Failure failure, const std::string& reason) override {
    closeAsync(reason, LogLevel::kWarn,
               failure == net::ByteLink::Failure::kTlsHandshake ? PeerEvent::kTlsHandshakeFailure
                                                                : PeerEvent::kLinkFailure);
  }

  // The writer's next batch: the frames' own pages and referenced ranges, no
  // flattening copy; the frames stay alive until the next call.
  bool nextPieces(std::vector<std::span<const uint8_t>>& pieces) override {
    writing_frames_.clear();
    protocol::WriteQueue::Batch batch = write_queue_.next();
    // The previous batch has left: a ping answer in it was the last one.
    if (ping_in_batch_) {
      ping_in_batch_ = false;
      ping_answer_queued_ = false;
    }
    resumeReadingIfDrained();
    if (batch.frames.empty()) {
      // Only a refused handshake closes after its answer has left.
      if (batch.close_reason) {
        closeAsync(std::move(*batch.close_reason), LogLevel::kWarn, PeerEvent::kRefusedHandshake);
      }
      return false;
    }
    writing_frames_ = std::move(batch.frames);
    for (const std::shared_ptr<BytesStreamOutput>& frame : writing_frames_) {
      if (frame == pingFrame()) ping_in_batch_ = true;
      const BytesReference bytes = frame->bytes();
      for (BytesReference::Piece piece : bytes.pieces()) {
        pieces.emplace_back(piece.data(), piece.size());
      }
    }
    return true;
  }

  std::shared_ptr<void> keepAlive() override { return shared_from_this(); }

  // InboundSession::Host.
  void send(std::shared_ptr<BytesStreamOutput> frame) override { enqueue(std::move(frame)); }
  void log(LogLevel level, const std::string& line) override { service_->log(level, line); }
  void logRefusal(std::string line) override {
    service_->logEvent(PeerEvent::kRefusedRequest, std::move(line));
  }

  // ReadLoop::Sink. A ping is answered only once the previous answer has
  // left: a peer that pings and never reads makes no queue grow.
  void answerPing() override {
    if (ping_answer_queued_.exchange(true)) return;
    enqueue(pingFrame());
  }

  void onHandshakeRequest(DecodedFrame&& frame) override {
    const InboundMessage m = InboundMessage::parse(std::move(frame), options().max_frame_size);
    protocol::HandshakeAnswer answer = protocol::answerHandshake(
        m, {options().version, options().minimum_compatible_version, options().node_name,
            inbound_.settings().local_address, description_});
    if (!answer.warning.empty()) service_->log(LogLevel::kWarn, answer.warning);
    if (!answer.frame) {  // refused unanswered, as ES's InboundDecoder does
      closeNow(answer.refusal, LogLevel::kWarn, PeerEvent::kRefusedHandshake);
      return;
    }
    if (answer.agreed) {
      completeHandshake(*answer.agreed);
    } else {
      write_queue_.closeAfterFlush(answer.refusal);
    }
    enqueue(std::move(answer.frame));
  }

  void onVersionAdopted(TransportVersion) override { handshake_timer_.cancel(); }

  void onRequest(DecodedFrame&& frame, InboundBudget::Lease lease) override {
    if (!deferred_.empty() || overCap()) {  // see keepReading
      deferred_.push_back({std::move(frame), std::move(lease)});
      return;
    }
    serve(std::move(frame), std::move(lease));
  }

  void serve(DecodedFrame&& frame, InboundBudget::Lease lease) {
    // The session shares this connection's ownership: a channel keeps both.
    protocol::InboundSession::onRequest(
        std::shared_ptr<protocol::InboundSession>(shared_from_this(), &inbound_), std::move(frame),
        std::move(lease), version());
  }

  void onResponse(DecodedFrame&& frame) override { calls_.onResponse(std::move(frame)); }

  // The node budget refused a frame (ReadLoop::admit): counted, logged at
  // most once a second, and a request answered now.
  void onRefused(const FrameHeader& h, const CircuitBreakingError& breaker, bool answer) override {
    service_->logEvent(PeerEvent::kRefusedFrame,
                       "[" + description_ + "] refusing a frame of " +
                           std::to_string(h.frameSize()) + " bytes (request id [" +
                           std::to_string(h.request_id) + "]): " + breaker.what());
    if (answer)
      enqueue(inbound_.errorFrame(h.request_id, version(), "", breaker.remoteException()));
  }

  // The content of the response to a call that lent a buffer large enough
  // goes there (the call then waits for it whatever its timeout).
  std::span<uint8_t> receiveBuffer(const FrameHeader& h) override {
    return calls_.pending().claimReceiveBuffer(h.request_id, h.contentSize());
  }

  // The calls' one timer, on the strand: armed for the earliest deadline;
  // when it fires, the calls due time out and it is armed again.
  void armCallTimer() {
    const std::optional<protocol::PendingCalls::Clock::time_point> deadline =
        calls_.pending().armedDeadline();
    if (!deadline || closed_) return;
    call_timer_.expires_at(*deadline);
    call_timer_.async_wait([weak = weak_from_this()](const error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) {
        self->calls_.expire(protocol::PendingCalls::Clock::now());
        self->armCallTimer();
      }
    });
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
    std::string reason = "handshake not completed within " +
                         std::to_string(options().handshake_timeout.count()) + "ms (received " +
                         std::to_string(loop_.bytesReceived()) + " bytes)";
    closeNow(reason, LogLevel::kWarn, PeerEvent::kHandshakeTimeout);
  }

  void updateDeadline() {
    switch (loop_.deadlineAfterRead()) {
      case protocol::ReadLoop::Deadline::kKeep:
        return;
      case protocol::ReadLoop::Deadline::kCancel:
        deadline_.cancel();
        return;
      case protocol::ReadLoop::Deadline::kArm:
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
    closeNow(loop_.deadlineReason(options().read_deadline), LogLevel::kWarn,
             PeerEvent::kFrameTimeout);
  }

  // On the strand, once: the link, the queue, the timers and every call.
  void closeNow(const std::string& reason, LogLevel level,
                std::optional<PeerEvent> event = std::nullopt) {
    if (closed_.exchange(true)) return;
    std::string line = "closing connection [" + description_ + "]: " + reason;
    if (event) level = service_->noteEvent(*event, line);
    service_->log(level, line);
    loop_.close();
    deadline_.cancel();
    handshake_timer_.cancel();
    stall_timer_.cancel();
    deferred_.clear();
    link_->close();
    write_queue_.close();
    call_timer_.cancel();
    calls_.close(reason);
    service_->removeConnection(shared_from_this());
  }

  std::shared_ptr<TransportService::Impl> service_;
  net::Strand strand_;
  const Direction direction_;
  const std::string description_;
  std::unique_ptr<net::ByteLink> link_;
  protocol::ReadLoop loop_;  // the strand's
  protocol::OutboundCalls calls_;
  protocol::InboundSession inbound_;
  protocol::WriteQueue write_queue_;
  asio::steady_timer deadline_{strand_};
  asio::steady_timer handshake_timer_{strand_};
  asio::steady_timer call_timer_{strand_};   // see armCallTimer
  asio::steady_timer stall_timer_{strand_};  // see keepReading
  std::atomic<bool> reading_paused_{false};  // stopReading until the writer's resume
  bool reading_stopped_ = false;             // the strand's: until onResume resumes the link
  struct Deferred {
    DecodedFrame frame;
    InboundBudget::Lease lease;
  };
  std::deque<Deferred> deferred_;  // the strand's: see keepReading
  std::atomic<bool> ping_answer_queued_{false};
  bool ping_in_batch_ = false;  // the writer's
  bool read_direct_ = false;    // the strand's: the last nextRead's
  // The thread dispatching a read's frames (see enqueue), and whether what
  // they sent waits for the end of it; the strand's.
  std::atomic<std::thread::id> dispatching_{};
  bool flush_after_dispatch_ = false;
  std::vector<std::shared_ptr<BytesStreamOutput>> writing_frames_;  // the writer's
  std::atomic<bool> closed_{false};
};

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
  const std::chrono::milliseconds delay = accept_backoff.nextDelay();
  logEvent(PeerEvent::kAcceptFailure, "accept failed: " + ec.message() + "; retrying in " +
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
    const tcp::endpoint remote = socket.remote_endpoint(ignored);
    std::string line = "closing inbound connection from " + endpointText(remote) + ": " +
                       std::to_string(open) +
                       " inbound connections are open, the maximum (max_inbound_connections)";
    // Counted before the close the peer sees.
    const LogLevel level = noteEvent(PeerEvent::kRejectedConnection, line);
    socket.close(ignored);
    log(level, line);
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

// The summary lines of held-back events, an interval after the first held
// back; again while any kind still holds some.
void TransportService::Impl::armSummary() {
  if (summary_armed.exchange(true)) return;
  asio::post(summary_strand, [self = shared_from_this()] {
    if (self->summaries_stopped) return;
    self->summary_timer.expires_after(std::chrono::seconds(1));
    self->summary_timer.async_wait([weak = std::weak_ptr<Impl>(self)](const error_code& ec) {
      if (ec) return;
      if (auto impl = weak.lock()) impl->logSummaries();
    });
  });
}

void TransportService::Impl::logSummaries() {
  for (const PeerEvents::Summary& s : events.takeSummaries()) {
    log(eventLevel(s.kind), s.line);
  }
  summary_armed = false;
  if (events.summaryOwed()) armSummary();
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
  asio::post(summary_strand, [this] {
    summaries_stopped = true;
    summary_timer.cancel();
  });
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

TransportOptions TransportOptions::forRelease(const std::string& release) {
  TransportOptions o;
  o.version = TransportVersion::parse(release);
  o.minimum_compatible_version = minimumCompatibleFor(o.version);
  return o;
}

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
  stats.read_pauses = impl_->read_pauses.load();
  // Each event kind's counter (peerEventName is the field's name).
  static constexpr std::pair<PeerEvent, uint64_t TransportStats::*> kCounters[] = {
      {PeerEvent::kAcceptFailure, &TransportStats::accept_failures},
      {PeerEvent::kRejectedConnection, &TransportStats::rejected_connections},
      {PeerEvent::kHandshakeTimeout, &TransportStats::handshake_timeouts},
      {PeerEvent::kRefusedFrame, &TransportStats::refused_frames},
      {PeerEvent::kStalledConnection, &TransportStats::stalled_connections},
      {PeerEvent::kRefusedHandshake, &TransportStats::refused_handshakes},
      {PeerEvent::kTlsHandshakeFailure, &TransportStats::tls_handshake_failures},
      {PeerEvent::kLinkFailure, &TransportStats::link_failures},
      {PeerEvent::kProtocolError, &TransportStats::protocol_errors},
      {PeerEvent::kTruncatedFrame, &TransportStats::truncated_frames},
      {PeerEvent::kFrameTimeout, &TransportStats::frame_timeouts},
      {PeerEvent::kRefusedRequest, &TransportStats::refused_requests},
  };
  static_assert(std::size(kCounters) == kPeerEventKinds);
  for (const auto& [kind, field] : kCounters) stats.*field = impl_->events.count(kind);
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

namespace {

// The TCP connect, bounded by `timeout` (a peer that drops SYNs would hold a
// blocking connect for the kernel's retries, minutes). The socket and its
// timer share a strand, so the one that fires first settles the outcome.
tcp::socket connectWithin(asio::io_context& io, const tcp::endpoint& endpoint,
                          std::chrono::milliseconds timeout, const std::string& target) {
  struct Attempt {
    explicit Attempt(asio::io_context& io)
        : strand(asio::make_strand(io)), socket(strand), timer(strand) {}
    net::Strand strand;
    tcp::socket socket;
    asio::steady_timer timer;
    bool settled = false;  // the strand's
    std::promise<error_code> outcome;
  };
  auto attempt = std::make_shared<Attempt>(io);
  std::future<error_code> outcome = attempt->outcome.get_future();
  asio::dispatch(attempt->strand, [attempt, endpoint, timeout] {
    attempt->socket.async_connect(endpoint, [attempt](const error_code& ec) {
      if (attempt->settled) return;  // timed out first
      attempt->settled = true;
      attempt->timer.cancel();
      attempt->outcome.set_value(ec);
    });
    attempt->timer.expires_after(timeout);
    attempt->timer.async_wait([attempt](const error_code& ec) {
      if (ec || attempt->settled) return;
      attempt->settled = true;
      error_code ignored;
      attempt->socket.close(ignored);
      attempt->outcome.set_value(asio::error::timed_out);
    });
  });
  const error_code ec = outcome.get();
  if (ec == asio::error::timed_out) {
    throw ConnectTransportError("[" + target + "] connect timed out after [" +
                                std::to_string(timeout.count()) + "ms]");
  }
  if (ec) throw ConnectTransportError("[" + target + "] connect failed: " + ec.message());
  // Settled on the strand; the caller owns the socket from here.
  std::promise<tcp::socket> handed;
  std::future<tcp::socket> socket = handed.get_future();
  asio::dispatch(attempt->strand,
                 [attempt, &handed] { handed.set_value(std::move(attempt->socket)); });
  return socket.get();
}

}  // namespace

std::shared_ptr<Connection> TransportService::connect(const std::string& host, uint16_t port) {
  const std::string target = host + ":" + std::to_string(port);
  error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) throw ConnectTransportError("[" + target + "] bad address: " + ec.message());
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) throw ConnectTransportError("[" + target + "] the service is stopped");
  }
  const TransportOptions& options = impl_->options;
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  tcp::socket socket =
      connectWithin(impl_->io, tcp::endpoint(address, port), options.connect_timeout, target);
  socket.set_option(tcp::no_delay(true), ec);
  auto connection =
      std::make_shared<TcpConnection>(impl_, std::move(socket), TcpConnection::Direction::kOutbound,
                                      host, tcp::endpoint(address, port));
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) throw ConnectTransportError("[" + target + "] the service is stopped");
    impl_->connections.insert(connection);
  }
  connection->start();

  auto done = std::make_shared<std::promise<void>>();
  std::future<void> handshake = done->get_future();
  const int64_t id = impl_->next_request_id++;
  auto frame =
      protocol::handshakeRequestFrame(id, options.version, options.minimum_compatible_version);
  std::weak_ptr<TcpConnection> weak = connection;
  RawResponseReader reader = [weak, done, options,
                              channel = target](StreamInput& in) -> std::function<void()> {
    const TcpHandshakeResponse remote = protocol::readHandshakeResponseBody(in);
    return [weak, done, remote, channel, local = options.version,
            minimum = options.minimum_compatible_version] {
      auto c = weak.lock();
      if (!c) return;
      try {
        c->completeHandshake(protocol::agreedVersion(remote, local, minimum, channel));
      } catch (...) {
        done->set_exception(std::current_exception());
        return;
      }
      done->set_value();
    };
  };
  connection->submit(id,
                     {.action = std::string(kHandshakeAction),
                      .reader = std::move(reader),
                      .on_failure = [done](std::exception_ptr e) { done->set_exception(e); },
                      .timeout = std::max(std::chrono::milliseconds(1),
                                          std::chrono::duration_cast<std::chrono::milliseconds>(
                                              deadline - std::chrono::steady_clock::now()))},
                     std::move(frame));
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
  tcp_connection->submit(id,
                         {.action = std::string(action),
                          .reader = std::move(reader),
                          .on_failure = std::move(on_failure),
                          .timeout = timeout,
                          .on_headers = context.on_response_headers,
                          .receive_buffer = context.receive_buffer},
                         std::move(frame));
}

}  // namespace wirestream::transport
