// internal:wirestream/features (a wirestream extension, never sent to ES
// unless asked: an ES node refuses it with action_not_found_transport_exception):
//
//   request  := TaskId (the transport's), VInt n, n x string   the requester's features
//   response := VInt n, n x string                             those the answering node has too
#include "transport/features.h"

#include <algorithm>
#include <future>

#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::transport {
namespace {

struct FeatureList final : Writeable {
  std::vector<std::string> names;

  FeatureList() = default;
  explicit FeatureList(std::vector<std::string> n) : names(std::move(n)) {}
  explicit FeatureList(StreamInput& in) : names(in.readStringArray()) {}
  void writeTo(StreamOutput& out) const override { out.writeStringArray(names); }
};

std::vector<std::string> splitNames(std::string_view header) {
  std::vector<std::string> out;
  while (!header.empty()) {
    size_t comma = header.find(',');
    out.emplace_back(header.substr(0, comma));
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

void registerFeaturesHandler(TransportService& service, std::vector<std::string> features) {
  std::set<std::string> ours(features.begin(), features.end());
  service.registerRequestHandler(
      std::string(kFeaturesAction), [](StreamInput& in) { return FeatureList(in); },
      [ours](const FeatureList& asked) {
        std::set<std::string> both;
        for (const std::string& f : asked.names) {
          if (ours.count(f)) both.insert(f);
        }
        return FeatureList(std::vector<std::string>(both.begin(), both.end()));
      });
}

bool requestedFeature(const TransportChannel& channel, std::string_view feature) {
  const RequestHeaders& headers = channel.requestHeaders();
  auto it = headers.find(std::string(kFeaturesHeader));
  if (it == headers.end()) return false;
  std::vector<std::string> names = splitNames(it->second);
  return std::find(names.begin(), names.end(), feature) != names.end();
}

FeatureNegotiator::FeatureNegotiator(TransportService& service, std::vector<std::string> features)
    : service_(service), features_(std::move(features)) {}

std::set<std::string> FeatureNegotiator::negotiate(const std::shared_ptr<Connection>& connection,
                                                   std::chrono::milliseconds timeout) {
  std::set<std::string> both;
  try {
    FeatureList answer = service_
                             .submitRequest(
                                 connection, kFeaturesAction, FeatureList(features_),
                                 [](StreamInput& in) { return FeatureList(in); }, timeout)
                             .get();
    // Only what we asked for: a peer cannot switch on what we cannot read.
    for (const std::string& f : answer.names) {
      if (std::find(features_.begin(), features_.end(), f) != features_.end()) both.insert(f);
    }
  } catch (const ActionNotFoundError&) {
    // An Elasticsearch node (or a wirestream node without the handler).
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(negotiated_, [](const auto& e) { return e.second.connection.expired(); });
  negotiated_[connection.get()] = Entry{connection, both};
  return both;
}

std::set<std::string> FeatureNegotiator::features(const Connection& connection) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = negotiated_.find(&connection);
  if (it == negotiated_.end() || it->second.connection.expired()) return {};
  return it->second.features;
}

bool FeatureNegotiator::has(const Connection& connection, std::string_view feature) const {
  return features(connection).count(std::string(feature)) > 0;
}

TransportService::CallContext FeatureNegotiator::callContext(const Connection& connection) const {
  TransportService::CallContext context;
  std::string names;
  for (const std::string& f : features(connection)) {
    if (!names.empty()) names += ',';
    names += f;
  }
  if (!names.empty()) context.request_headers[std::string(kFeaturesHeader)] = names;
  return context;
}

}  // namespace wirestream::transport
