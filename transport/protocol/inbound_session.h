// InboundSession: the serving half of an inbound connection without the
// socket: each request's admission against the connection's in-flight
// budget (ES's in-flight-requests breaker), the handler its action goes to,
// and the TransportChannel that answers it, once (a channel dropped
// unanswered sends an error, so no caller is left waiting). Error answers
// are written as ES's OutboundHandler writes them. The connection is its
// Host and sends what the channels answer:
//
//   InboundSession session(settings, host);
//   InboundSession::onRequest(self, std::move(frame), std::move(lease), agreed);
//   host.send(session.errorFrame(id, version, action, cause));  // a refusal
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
  };

  struct Settings {
    std::string node_name;
    std::string local_address;  // "127.0.0.1:9300", as ES's NetworkAddress formats it
    std::string description;    // the connection's, for log lines
    size_t max_frame_size = 0;
    size_t in_flight_budget = 0;
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
  // A channel answered: its request's bytes leave the in-flight budget.
  void release(size_t bytes) { in_flight_.fetch_sub(bytes); }

 private:
  const Settings settings_;
  Host& host_;
  std::atomic<size_t> in_flight_{0};
};

}  // namespace wirestream::transport::protocol
