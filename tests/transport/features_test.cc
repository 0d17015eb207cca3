// Tests of //transport:features: two wirestream nodes agree on what both
// have; a node without the action (as every Elasticsearch node) answers
// action_not_found_transport_exception and the requester falls back.
#include "transport/features.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <set>
#include <string>

#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;

struct Ping final : Writeable {
  Ping() = default;
  explicit Ping(StreamInput&) {}
  void writeTo(StreamOutput&) const override {}
};

// Answers whether the request asked for the columnar aggregations.
struct Answer final : Writeable {
  bool columnar = false;
  Answer() = default;
  explicit Answer(bool c) : columnar(c) {}
  explicit Answer(StreamInput& in) : columnar(in.readBoolean()) {}
  void writeTo(StreamOutput& out) const override { out.writeBoolean(columnar); }
};

void registerPing(TransportService& node) {
  node.registerAsyncRequestHandler(
      "test/ping", [](StreamInput& in) { return Ping(in); },
      [](Ping&&, const std::shared_ptr<TransportChannel>& ch) {
        ch->sendResponse(Answer(requestedFeature(*ch, kColumnarAggregations)));
      });
}

bool ping(TransportService& client, const std::shared_ptr<Connection>& c,
          const FeatureNegotiator& negotiator) {
  return client
      .submitRequest(
          c, "test/ping", Ping(), [](StreamInput& in) { return Answer(in); }, 10s,
          negotiator.callContext(*c))
      .get()
      .columnar;
}

TEST(Features, TwoWirestreamNodesAgree) {
  TransportService server({.node_name = "server"});
  registerFeaturesHandler(server, {"other", std::string(kColumnarAggregations)});
  registerPing(server);
  uint16_t port = server.listen();
  TransportService client({.node_name = "client"});
  auto c = client.connect("127.0.0.1", port);
  FeatureNegotiator negotiator(client, {std::string(kColumnarAggregations), "mine only"});
  EXPECT_FALSE(negotiator.has(*c, kColumnarAggregations));  // not asked yet
  EXPECT_FALSE(ping(client, c, negotiator));
  std::set<std::string> both = negotiator.negotiate(c, 10s);
  EXPECT_EQ(both, std::set<std::string>{std::string(kColumnarAggregations)});
  EXPECT_TRUE(negotiator.has(*c, kColumnarAggregations));
  EXPECT_FALSE(negotiator.has(*c, "other"));
  EXPECT_FALSE(negotiator.has(*c, "mine only"));
  EXPECT_EQ(negotiator.callContext(*c).request_headers.at(std::string(kFeaturesHeader)),
            "columnar_aggregations");
  EXPECT_TRUE(ping(client, c, negotiator));
}

TEST(Features, APeerWithoutTheActionFallsBack) {
  // No features handler: the service answers as ES does for an unknown action.
  TransportService es_like({.node_name = "es"});
  registerPing(es_like);
  uint16_t port = es_like.listen();
  TransportService client({.node_name = "client"});
  auto c = client.connect("127.0.0.1", port);
  // What the fallback rests on: the answer is ActionNotFoundTransportException.
  try {
    client
        .submitRequest(
            c, kFeaturesAction, Ping(), [](StreamInput& in) { return Answer(in); }, 10s)
        .get();
    ADD_FAILURE() << "no error";
  } catch (const ActionNotFoundError& e) {
    EXPECT_EQ(e.action(), kFeaturesAction);
  }
  FeatureNegotiator negotiator(client, {std::string(kColumnarAggregations)});
  EXPECT_TRUE(negotiator.negotiate(c, 10s).empty());
  EXPECT_FALSE(negotiator.has(*c, kColumnarAggregations));
  EXPECT_TRUE(negotiator.callContext(*c).request_headers.empty());
  EXPECT_FALSE(ping(client, c, negotiator));
}

TEST(Features, PerConnection) {
  TransportService ws({.node_name = "ws"});
  registerFeaturesHandler(ws, {std::string(kColumnarAggregations)});
  TransportService es_like({.node_name = "es"});
  uint16_t ws_port = ws.listen(), es_port = es_like.listen();
  TransportService client({.node_name = "client"});
  auto a = client.connect("127.0.0.1", ws_port);
  auto b = client.connect("127.0.0.1", es_port);
  FeatureNegotiator negotiator(client, {std::string(kColumnarAggregations)});
  negotiator.negotiate(a, 10s);
  negotiator.negotiate(b, 10s);
  EXPECT_TRUE(negotiator.has(*a, kColumnarAggregations));
  EXPECT_FALSE(negotiator.has(*b, kColumnarAggregations));
}

}  // namespace
}  // namespace wirestream::transport
