// The calling half of a connection without a socket: a response completes
// its call through the reader, an error response reaches the failure
// callback as the remote's typed error, and time-outs, closes and late
// responses fail or drop calls exactly once, with typed errors.
#include "transport/protocol/outbound_calls.h"

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "transport/frame.h"
#include "transport/remote_exception.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {
namespace {

using namespace std::chrono_literals;

struct LongBody final : Writeable {
  int64_t value = 0;
  void writeTo(StreamOutput& out) const override { out.writeVLong(value); }
};

DecodedFrame decodeOne(const BytesStreamOutput& out) {
  FrameDecoder decoder(1 << 20);
  std::optional<DecodedFrame> frame;
  decoder.feed(out.bytes().toVector(), [&](DecodedFrame&& f) { frame = std::move(f); });
  EXPECT_TRUE(frame.has_value());
  return std::move(*frame);
}

DecodedFrame response(int64_t id, int64_t value, ResponseHeaders headers = {}) {
  BytesStreamOutput out;
  LongBody body;
  body.value = value;
  writeResponseFrame(out, {id, TransportVersion::current(), false}, headers, body,
                     CompressionScheme::kNone);
  return decodeOne(out);
}

// What the calls did: values read, failures (as what() and a type check).
struct Outcome {
  std::vector<int64_t> values;
  std::vector<std::exception_ptr> failures;
  std::vector<std::string> logged;
};

PendingCall call(Outcome& o, std::string action = "indices:data/read/search",
                 std::chrono::milliseconds timeout = 0ms) {
  return {.action = std::move(action),
          .reader = [&o](StreamInput& in) -> std::function<void()> {
            const int64_t v = in.readVLong();
            return [&o, v] { o.values.push_back(v); };
          },
          .on_failure = [&o](std::exception_ptr e) { o.failures.push_back(e); },
          .timeout = timeout};
}

template <class E>
bool failedWith(std::exception_ptr e, const std::string& fragment) {
  try {
    std::rethrow_exception(e);
  } catch (const E& error) {
    return std::string(error.what()).find(fragment) != std::string::npos;
  } catch (...) {
  }
  return false;
}

OutboundCalls calls(Outcome& o) {
  return OutboundCalls("outbound a -> b", 1 << 20,
                       [&o](bool, const std::string& line) { o.logged.push_back(line); });
}

TEST(OutboundCalls, AResponseCompletesItsCallThroughTheReaderOnce) {
  Outcome o;
  OutboundCalls c = calls(o);
  EXPECT_EQ(c.submit(7, call(o)), PendingCalls::Added::kAdded);
  ResponseHeaders seen;
  PendingCall with_headers = call(o);
  with_headers.on_headers = [&seen](const ResponseHeaders& h) { seen = h; };
  (void)c.submit(8, std::move(with_headers));
  c.onResponse(response(8, 80, {{"Warning", {"deprecated"}}}));
  c.onResponse(response(7, 70));
  c.onResponse(response(7, 71));  // a second answer to a completed call: dropped
  EXPECT_EQ(o.values, (std::vector<int64_t>{80, 70}));
  EXPECT_TRUE(o.failures.empty());
  EXPECT_EQ(seen.at("Warning"), std::vector<std::string>{"deprecated"});
  ASSERT_EQ(o.logged.size(), 1u);
  EXPECT_NE(o.logged[0].find("request id [7]: no such pending request"), std::string::npos);
}

TEST(OutboundCalls, AnErrorResponseFailsTheCallWithTheRemotesTypedError) {
  Outcome o;
  OutboundCalls c = calls(o);
  (void)c.submit(3, call(o, "indices:data/read/search"));
  BytesStreamOutput out;
  writeErrorFrame(out, {3, TransportVersion::current(), false},
                  *wrapInRemoteTransport(
                      "node-b", "127.0.0.1:9300", "indices:data/read/search",
                      exceptionFromTypeAndMessage("illegal_argument_exception", "bad size [-1]")));
  c.onResponse(decodeOne(out));
  ASSERT_EQ(o.failures.size(), 1u);
  EXPECT_TRUE(failedWith<RemoteTransportError>(o.failures[0], "bad size [-1]"));
  EXPECT_TRUE(o.values.empty());
}

TEST(OutboundCalls, ABodyNotReadWholeFailsTheCallNamingWhatWasLeft) {
  Outcome o;
  OutboundCalls c = calls(o);
  PendingCall reads_nothing = call(o);
  reads_nothing.reader = [](StreamInput&) -> std::function<void()> { return [] {}; };
  (void)c.submit(4, std::move(reads_nothing));
  c.onResponse(response(4, 1 << 20));
  ASSERT_EQ(o.failures.size(), 1u);
  EXPECT_TRUE(failedWith<TransportError>(o.failures[0], "Message not fully read (response)"));
  EXPECT_TRUE(failedWith<TransportError>(o.failures[0], "available [3]"));
}

TEST(OutboundCalls, DueCallsTimeOutWithReceiveTimeoutErrorAndTheirResponsesAreDropped) {
  Outcome o;
  OutboundCalls c = calls(o);
  EXPECT_EQ(c.submit(1, call(o, "a", 50ms)), PendingCalls::Added::kArmTimer);
  (void)c.submit(2, call(o, "b"));  // no deadline
  c.expire(PendingCalls::Clock::now() + 1s);
  ASSERT_EQ(o.failures.size(), 1u);
  EXPECT_TRUE(failedWith<ReceiveTimeoutError>(o.failures[0], "[a] request_id [1] timed out"));
  c.onResponse(response(1, 10));
  c.onResponse(response(2, 20));
  EXPECT_EQ(o.values, std::vector<int64_t>{20});
}

TEST(OutboundCalls, CloseFailsEveryCallAndRefusesLaterOnesWithNodeDisconnected) {
  Outcome o;
  OutboundCalls c = calls(o);
  (void)c.submit(1, call(o, "a", 10s));
  (void)c.submit(2, call(o, "b"));
  c.close("the peer reset the connection");
  ASSERT_EQ(o.failures.size(), 2u);
  for (const std::exception_ptr& e : o.failures) {
    EXPECT_TRUE(failedWith<NodeDisconnectedError>(e, "the peer reset the connection"));
  }
  EXPECT_EQ(c.submit(3, call(o, "c")), PendingCalls::Added::kClosed);
  ASSERT_EQ(o.failures.size(), 3u);
  EXPECT_TRUE(failedWith<NodeDisconnectedError>(o.failures[2], "cannot send [c]"));
}

TEST(OutboundCalls, ACallbackThatThrowsIsLoggedNotPropagated) {
  Outcome o;
  OutboundCalls c = calls(o);
  PendingCall throws = call(o, "x");
  throws.reader = [](StreamInput& in) -> std::function<void()> {
    (void)in.readVLong();
    return [] { throw std::runtime_error("boom"); };
  };
  throws.on_failure = [](std::exception_ptr) { throw std::runtime_error("failure boom"); };
  (void)c.submit(1, std::move(throws));
  EXPECT_NO_THROW(c.onResponse(response(1, 5)));
  ASSERT_EQ(o.logged.size(), 1u);
  EXPECT_NE(o.logged[0].find("response callback for [x] threw: boom"), std::string::npos);
  PendingCall fails = call(o, "y");
  fails.on_failure = [](std::exception_ptr) { throw std::runtime_error("failure boom"); };
  (void)c.submit(2, std::move(fails));
  EXPECT_NO_THROW(c.close("closing"));
}

}  // namespace
}  // namespace wirestream::transport::protocol
