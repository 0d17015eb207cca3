// Feature negotiation between wirestream nodes: after the handshake, a node
// asks its peer through the action internal:wirestream/features, which
// Elasticsearch nodes do not have, which wirestream extensions (wire format
// §10) both understand. An ES node answers "No handler for action"
// (ActionNotFoundTransportException, id 101): the peer has no feature, and
// the node keeps to the ES encodings.
//
// Example (runs: features):
//   #include "transport/zero_copy.h"
//   using namespace std::chrono_literals;
//   TransportService shard, coordinator;
//   // every node that can read the columnar aggregations:
//   registerFeaturesHandler(shard, {std::string(kColumnarAggregations)});
//   // the handler, answering: may it use the extension?
//   auto read = [](StreamInput& in) { return ByteArrayBody(in.readBytesReference()); };
//   shard.registerAsyncRequestHandler(
//       "shard/search", read, [](ByteArrayBody&&, std::shared_ptr<TransportChannel> channel) {
//         bool columnar = requestedFeature(*channel, kColumnarAggregations);  // true here
//         channel->sendResponse(ByteArrayBody());
//       });
//   // the requester, once per connection:
//   std::shared_ptr<Connection> connection = coordinator.connect("127.0.0.1", shard.listen());
//   FeatureNegotiator negotiator(coordinator, {std::string(kColumnarAggregations)});
//   negotiator.negotiate(connection, 5s);
//   bool columnar = negotiator.has(*connection, kColumnarAggregations);
//   coordinator.submitRequest(connection, "shard/search", ByteArrayBody(), read, 60s,
//                             negotiator.callContext(*connection)).get();
//
// Connections are one-directional (transport_service.h): the requester
// learns what the peer can read, and tells the handler which negotiated
// features its answer may use in the request header kFeaturesHeader
// (comma-separated names), which callContext() sets. A request without it
// (from ES, or from a node that did not negotiate) gets the ES encodings.
//
// Wire: request body (after the parent TaskId) writeStringArray(requester's
// features); response writeStringArray(the features of the request that the
// answering node has, sorted).
//
// Thread-safety: FeatureNegotiator is thread-safe; the free functions are.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "transport/transport_service.h"

namespace wirestream::transport {

inline constexpr std::string_view kFeaturesAction = "internal:wirestream/features";
inline constexpr std::string_view kFeaturesHeader = "_wirestream_features";
// The columnar encoding of aggregation results (aggregations/columnar.h).
inline constexpr std::string_view kColumnarAggregations = "columnar_aggregations";

// Answers kFeaturesAction on `service` with the features of `features` the
// requester listed. Register it before listen().
void registerFeaturesHandler(TransportService& service, std::vector<std::string> features);

// Whether the request on `channel` asked for `feature` (kFeaturesHeader).
bool requestedFeature(const TransportChannel& channel, std::string_view feature);

class FeatureNegotiator {
 public:
  FeatureNegotiator(TransportService& service, std::vector<std::string> features);

  // Asks the peer of `connection` (blocking, like connect(): never on an I/O
  // thread) and records what both have: empty for a peer without the action
  // (an ES node). Any other failure is rethrown and nothing is recorded.
  std::set<std::string> negotiate(const std::shared_ptr<Connection>& connection,
                                  std::chrono::milliseconds timeout);

  // What negotiate() recorded for `connection` (empty if it was not asked).
  std::set<std::string> features(const Connection& connection) const;
  bool has(const Connection& connection, std::string_view feature) const;
  // The call context that tells the handler the negotiated features (no
  // header when there are none).
  TransportService::CallContext callContext(const Connection& connection) const;

 private:
  struct Entry {
    std::weak_ptr<Connection> connection;  // the key may be reused after it dies
    std::set<std::string> features;
  };

  TransportService& service_;
  std::vector<std::string> features_;
  mutable std::mutex mutex_;
  std::map<const Connection*, Entry> negotiated_;  // guarded by mutex_
};

}  // namespace wirestream::transport
