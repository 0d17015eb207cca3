#include "transport/protocol/inbound_session.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "stream/bytes_reference.h"
#include "transport/frame.h"
#include "transport/inbound_message.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {

namespace {

// The memory a parsed header map holds beyond the frame's bytes, as glibc
// and libstdc++ lay it out: a map node (two std::string, tree links) and
// its allocation header per entry, and each string past the small-string
// buffer its own allocation. (A map of 2,000 short keys is ~13 KB of
// frame and ~230 KB of memory.)
size_t heldBytes(const RequestHeaders& headers) {
  constexpr size_t kNode = sizeof(RequestHeaders::value_type) + 4 * sizeof(void*) + 16;
  constexpr size_t kSmallString = 15;
  auto heap = [](const std::string& s) {
    return s.capacity() > kSmallString ? s.capacity() + 17 : 0;
  };
  size_t bytes = 0;
  for (const auto& [key, value] : headers) bytes += kNode + heap(key) + heap(value);
  return bytes;
}

// The server side of one request. Answers once; dropping it unanswered sends
// an error so the caller is never left waiting.
class ChannelImpl final : public TransportChannel {
 public:
  // `compression`: the request's scheme, which its response uses too (ES).
  ChannelImpl(std::shared_ptr<InboundSession> session, int64_t request_id, std::string action,
              TransportVersion version, size_t reserved, InboundBudget::Lease lease,
              InboundBudget::Lease parsed_lease,
              CompressionScheme compression = CompressionScheme::kNone,
              RequestHeaders request_headers = {})
      : session_(std::move(session)),
        request_id_(request_id),
        action_(std::move(action)),
        version_(version),
        reserved_(reserved),
        lease_(std::move(lease)),
        parsed_lease_(std::move(parsed_lease)),
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
    auto frame = std::make_shared<BytesStreamOutput>();
    try {
      writeResponseFrame(*frame, {request_id_, version_, false}, takeResponseHeaders(), response,
                         compression_);
      if (frame->size() > session_->settings().max_frame_size) {
        internal::throwLimitExceeded("response of " + std::to_string(frame->size()) +
                                     " bytes exceeds the maximum frame size of " +
                                     std::to_string(session_->settings().max_frame_size) +
                                     " bytes");
      }
    } catch (...) {
      frame =
          session_->errorFrame(request_id_, version_, action_,
                               exceptionFromError(std::current_exception()), takeResponseHeaders());
    }
    finish(std::move(frame));
  }

  void sendError(const std::string& type, const std::string& message) override {
    claim();
    finish(session_->errorFrame(request_id_, version_, action_,
                                exceptionFromTypeAndMessage(type, message), takeResponseHeaders()));
  }

  void sendException(std::exception_ptr error) override {
    claim();
    finish(session_->errorFrame(request_id_, version_, action_, exceptionFromError(error),
                                takeResponseHeaders()));
  }

  // For the dispatcher: answers with `error` unless a response went out.
  void failIfUnanswered(std::exception_ptr error) {
    if (responded_.load()) {
      session_->host().log(
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
    session_->release(reserved_);
    lease_.reset();
    parsed_lease_.reset();
    session_->host().send(std::move(frame));
  }

  std::shared_ptr<InboundSession> session_;
  const int64_t request_id_;
  const std::string action_;
  const TransportVersion version_;
  const size_t reserved_;
  InboundBudget::Lease lease_;         // the node budget of the request, until answered
  InboundBudget::Lease parsed_lease_;  // and of what parsing made (inflated body, headers)
  const CompressionScheme compression_;
  const RequestHeaders request_headers_;
  std::mutex headers_mu_;
  ResponseHeaders response_headers_;  // guarded by headers_mu_
  std::atomic<bool> responded_{false};
};

}  // namespace

std::shared_ptr<BytesStreamOutput> InboundSession::errorFrame(
    int64_t request_id, TransportVersion version, const std::string& action,
    std::shared_ptr<const RemoteException> cause, const ResponseHeaders& headers) const {
  auto frame = std::make_shared<BytesStreamOutput>();
  const auto wrapped =
      wrapInRemoteTransport(settings_.node_name, settings_.local_address, action, std::move(cause));
  writeErrorFrame(*frame, {request_id, version, false}, *wrapped, headers);
  return frame;
}

// Refuses a request with ES's in-flight-requests breaker (a 429 to an ES
// client), the connection staying open.
void InboundSession::refuse(const FrameHeader& h, TransportVersion version,
                            const std::string& action, const std::string& message, int64_t wanted,
                            int64_t limit) {
  const CircuitBreakingError breaker(message, wanted, limit,
                                     CircuitBreakingError::Durability::kTransient);
  host_.logRefusal("[" + settings_.description + "] rejecting request id [" +
                   std::to_string(h.request_id) + "]: " + breaker.what());
  host_.send(errorFrame(h.request_id, version, action, breaker.remoteException()));
}

void InboundSession::onRequest(const std::shared_ptr<InboundSession>& self, DecodedFrame&& frame,
                               InboundBudget::Lease lease, TransportVersion version) {
  const Settings& settings = self->settings_;
  const FrameHeader h = frame.header;
  // What a request holds until answered is charged before it is parsed: one
  // of max_requests_in_flight, its frame's bytes of in_flight_budget, and
  // once inflated, its body's bytes of both budgets.
  const size_t count = self->requests_.fetch_add(1) + 1;
  if (count > settings.max_requests_in_flight) {
    self->requests_.fetch_sub(1);
    self->refuse(h, version, InboundMessage::peekAction(frame),
                 "[inflight_requests] too many requests in flight on this connection: [" +
                     std::to_string(count) + "], the maximum (max_requests_in_flight) is [" +
                     std::to_string(settings.max_requests_in_flight) + "]",
                 static_cast<int64_t>(count),
                 static_cast<int64_t>(settings.max_requests_in_flight));
    return;
  }
  size_t size = h.frameSize();
  const size_t budget = settings.in_flight_budget;
  auto overBudget = [&](size_t bytes, const std::string& action) {
    const size_t before = self->in_flight_.fetch_add(bytes);
    if (before + bytes <= budget) return false;
    self->in_flight_.fetch_sub(bytes);
    // As ES's in-flight-requests circuit breaker words it.
    self->refuse(h, version, action,
                 inFlightBreakerMessage(action, static_cast<int64_t>(before + bytes),
                                        static_cast<int64_t>(budget)),
                 static_cast<int64_t>(before + bytes), static_cast<int64_t>(budget));
    return true;
  };
  if (overBudget(size, InboundMessage::peekAction(frame))) {
    self->requests_.fetch_sub(1);
    return;
  }
  std::optional<InboundMessage> message;
  try {
    message.emplace(InboundMessage::parse(std::move(frame), settings.max_frame_size));
  } catch (...) {
    self->release(size);
    throw;
  }
  // What parsing made that the frame's bytes do not count: an inflated body,
  // the header map the channel keeps.
  const size_t parsed =
      (message->compression != CompressionScheme::kNone ? message->body().length() : 0) +
      heldBytes(message->request_headers);
  InboundBudget::Lease parsed_lease;
  if (parsed > 0) {
    if (settings.budget != nullptr) {
      parsed_lease = settings.budget->tryAcquire(parsed);
      if (!parsed_lease) {
        self->release(size);
        const auto wanted = static_cast<int64_t>(settings.budget->used() + parsed);
        const auto limit = static_cast<int64_t>(settings.budget->limit());
        self->refuse(h, version, message->action,
                     inFlightBreakerMessage(message->action, wanted, limit), wanted, limit);
        return;
      }
    }
    if (overBudget(parsed, message->action)) {
      self->release(size);
      return;
    }
    size += parsed;
  }
  auto channel = std::make_shared<ChannelImpl>(
      self, h.request_id, message->action, version, size, std::move(lease), std::move(parsed_lease),
      message->compression, std::move(message->request_headers));
  TransportService::RawRequestHandler handler = settings.find_handler(message->action);
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

}  // namespace wirestream::transport::protocol
