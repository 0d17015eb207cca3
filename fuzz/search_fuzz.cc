// Fuzz target: what an Elasticsearch data node sends back to the query phase,
// QuerySearchResult::readFrom (search/query_search_result.h: the context id, top
// docs, the aggregations' own bytes through the full registry, the node's copy
// of the ShardSearchRequest, rescore doc ids), and ShardSearchRequest::readFrom
// on the same bytes. Input: one version byte (% 3: 7.10.0, 7.17.0, 8.7.0), then
// the body.
//
// Checks: every refusal is a StreamError (UnsupportedWireValueError for what is
// not modelled), never another exception; a request that reads is written again
// at the same version, reads back to an equal request and writes the same bytes.
#include <cstdint>
#include <exception>
#include <span>
#include <typeinfo>
#include <vector>

#include "aggregations/registry.h"
#include "fuzz/fuzz_check.h"
#include "search/query_search_result.h"
#include "search/search_request.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "stream/stream_input.h"

namespace {

using namespace wirestream;

std::vector<uint8_t> write(const search::ShardSearchRequest& r, TransportVersion v) {
  BytesStreamOutput out;
  out.setTransportVersion(v);
  r.writeTo(out);
  return out.bytes().toVector();
}

template <class F>
void expectStreamErrorsOnly(F&& f, const char* what) {
  try {
    f();
  } catch (const StreamError&) {
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "%s threw %s: %s", what, typeid(e).name(), e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const TransportVersion kVersions[] = {TransportVersion(7100099), TransportVersion(7170099),
                                               TransportVersion(8070099)};
  const TransportVersion v = kVersions[data[0] % 3];
  std::span<const uint8_t> body(data + 1, size - 1);
  expectStreamErrorsOnly(
      [&] {
        ByteArrayStreamInput in(body);
        in.setTransportVersion(v);
        (void)search::QuerySearchResult::readFrom(in, aggregations::defaultRegistry());
      },
      "QuerySearchResult::readFrom");
  expectStreamErrorsOnly(
      [&] {
        ByteArrayStreamInput in(body);
        in.setTransportVersion(v);
        search::ShardSearchRequest r = search::ShardSearchRequest::readFrom(in);
        std::vector<uint8_t> again = write(r, v);
        ByteArrayStreamInput in2(again);
        in2.setTransportVersion(v);
        search::ShardSearchRequest back = search::ShardSearchRequest::readFrom(in2);
        FUZZ_CHECK(in2.position() == again.size(), "re-encoded request not read to its end");
        FUZZ_CHECK(write(back, v) == again, "re-encoded request does not write the same bytes");
      },
      "ShardSearchRequest::readFrom");
  return 0;
}
