// InboundSession: the serving half of an inbound connection without the
// socket: each request's admission against the connection's in-flight
// budgets (ES's in-flight-requests breaker: the bytes it holds, its inflated
// body counted, and how many are unanswered), the handler its action goes to,
// and the TransportChannel that answers it, once (a channel dropped
// unanswered sends an error, so no caller is left waiting). Error answers
// are written as ES's OutboundHandler writes them. The connection is its
// Host and sends what the channels answer:
//
// Example (compiled: inbound_session):
//   struct Conn final : InboundSession::Host {  // the connection
//     void send(std::shared_ptr<BytesStreamOutput> frame) override {}  // to its WriteQueue
//     void log(LogLevel level, const std::string& line) override {}
//     void logRefusal(std::string line) override {}
//   } host;
//   InboundSession::Settings settings;
//   settings.node_name = "node-1";
//   settings.max_frame_size = 1 << 20;
//   auto session = std::make_shared<InboundSession>(settings, host);
//   DecodedFrame frame;          // a request, from ReadLoop::Sink::onRequest
//   InboundBudget::Lease lease;  // with the node budget it holds
//   TransportVersion agreed = TransportVersion::current();
//   InboundSession::onRequest(session, std::move(frame), std::move(lease), agreed);
//   auto cause = exceptionFromTypeAndMessage("illegal_argument_exception", "no");
//   host.send(session->errorFrame(7, agreed, "shard/search", cause));  // a refusal
//
// Thread-safety: onRequest on the connection's strand; channels answer from
// any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "stream/bytes_stream_output.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_budget.h"
#include "transport/remote_exception.h"
#include "transport/transport_service.h"

namespace wirestream::transport::protocol {

class InboundSession {
 public:
  // The connection: sends frames (from any thread) and logs.
  class Host {
   public:
    virtual ~Host() = default;
    virtual void send(std::shared_ptr<BytesStreamOutput> frame) = 0;
    virtual void log(LogLevel level, const std::string& line) = 0;
    // A request refused with the in-flight breaker: counted, and logged at
    // INFO at most once a second (TransportStats::refused_requests).
    virtual void logRefusal(std::string line) = 0;
  };

  struct Settings {
    std::string node_name;
    std::string local_address;  // "127.0.0.1:9300", as ES's NetworkAddress formats it
    std::string description;    // the connection's, for log lines
    size_t max_frame_size = 0;
    size_t in_flight_budget = 0;
    size_t max_requests_in_flight = 0;
    // The node budget an inflated body is charged to too (null: none).
    InboundBudget* budget = nullptr;
    std::function<TransportService::RawRequestHandler(const std::string& action)> find_handler;
  };

  InboundSession(Settings settings, Host& host) : settings_(std::move(settings)), host_(host) {}

  // Admits, parses and runs one request; `self` (this session, sharing the
  // connection's ownership) keeps both alive until its channel answers.
  // `lease`: the node budget the request holds until then. Throws on a
  // malformed frame (the connection closes).
  static void onRequest(const std::shared_ptr<InboundSession>& self, DecodedFrame&& frame,
                        InboundBudget::Lease lease, TransportVersion version);

  // An error response at `version`, the exception wrapped in
  // RemoteTransportException("[node][address][action]").
  std::shared_ptr<BytesStreamOutput> errorFrame(int64_t request_id, TransportVersion version,
                                                const std::string& action,
                                                std::shared_ptr<const RemoteException> cause,
                                                const ResponseHeaders& headers = {}) const;

  const Settings& settings() const { return settings_; }
  Host& host() const { return host_; }
  // A channel answered: its request and its bytes leave the in-flight budgets.
  void release(size_t bytes) {
    in_flight_.fetch_sub(bytes);
    requests_.fetch_sub(1);
  }

 private:
  void refuse(const FrameHeader& h, TransportVersion version, const std::string& action,
              const std::string& message, int64_t wanted, int64_t limit);

  const Settings settings_;
  Host& host_;
  std::atomic<size_t> in_flight_{0};  // bytes of the requests not yet answered
  std::atomic<size_t> requests_{0};   // requests not yet answered
};

}  // namespace wirestream::transport::protocol
