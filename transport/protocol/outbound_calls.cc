#include "transport/protocol/outbound_calls.h"

#include <optional>
#include <utility>
#include <vector>

#include "stream/bytes_reference.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {

void OutboundCalls::fail(PendingCall& call, std::exception_ptr error) {
  try {
    if (call.on_failure) call.on_failure(std::move(error));
  } catch (...) {
    // A failing failure callback must not take the I/O thread down.
  }
}

PendingCalls::Added OutboundCalls::submit(int64_t id, PendingCall call) {
  const PendingCalls::Added added = pending_.add(id, call, PendingCalls::Clock::now());
  if (added == PendingCalls::Added::kClosed) {
    fail(call, std::make_exception_ptr(
                   NodeDisconnectedError("[" + description_ + "] is closed; cannot send [" +
                                         call.action + "] (" + pending_.closeReason() + ")")));
  }
  return added;
}

void OutboundCalls::onResponse(DecodedFrame&& frame) {
  const FrameHeader h = frame.header;
  std::optional<PendingCall> taken = pending_.take(h.request_id);
  if (!taken) {
    log_(false, "[" + description_ + "] dropping the response to request id [" +
                    std::to_string(h.request_id) + "]: no such pending request (timed out?)");
    return;
  }
  PendingCall& call = *taken;
  std::function<void()> complete;
  try {
    InboundMessage m = InboundMessage::parse(std::move(frame), max_frame_size_);
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
    fail(call, std::current_exception());
    return;
  }
  try {
    complete();
  } catch (const std::exception& e) {
    log_(true, "response callback for [" + call.action + "] threw: " + e.what());
  } catch (...) {
    log_(true, "response callback for [" + call.action + "] threw");
  }
}

void OutboundCalls::expire(PendingCalls::Clock::time_point now) {
  for (auto& [id, call] : pending_.takeExpired(now)) {
    fail(call, std::make_exception_ptr(ReceiveTimeoutError(
                   "[" + description_ + "][" + call.action + "] request_id [" + std::to_string(id) +
                   "] timed out after [" + std::to_string(call.timeout.count()) + "ms]")));
  }
}

void OutboundCalls::close(const std::string& reason) {
  for (auto& [id, call] : pending_.close(reason)) {
    fail(call, std::make_exception_ptr(NodeDisconnectedError(
                   "[" + description_ + "] disconnected before the response to [" + call.action +
                   "] request_id [" + std::to_string(id) + "]: " + reason)));
  }
}

}  // namespace wirestream::transport::protocol
