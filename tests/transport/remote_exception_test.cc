// ES's exception serialization byte for byte. Expected bytes follow ES's
// StreamOutput.writeException, ElasticsearchException.writeTo and the
// writeTo of each class (ActionTransportException's pre-8.1.0 fields,
// CircuitBreakingException, TooManyBucketsException, ...), registry ids from
// ElasticsearchExceptionHandle.
#include "transport/remote_exception.h"

#include <gtest/gtest.h>

#include "stream/errors.h"
#include "stream/transport_version.h"
#include "tests/stream/test_util.h"

namespace wirestream::transport {
namespace {

using namespace wirestream::testing;  // tests/stream/test_util.h: bytes, pages, prefixes

const TransportVersion kV7_17 = TransportVersion::fromRelease(7, 17, 0);
const TransportVersion kV8_7 = TransportVersion::V_8_7_0;

// writeString of a short ASCII text: VInt length, the bytes.
std::string str(const std::string& s) {
  std::vector<uint8_t> b = {static_cast<uint8_t>(s.size())};
  b.insert(b.end(), s.begin(), s.end());
  return toHex(b);
}
// writeOptionalString of a present text.
std::string opt(const std::string& s) { return "01 " + str(s); }

const std::string kWrapperMessage = "[es-node][127.0.0.1:9300][indices:data/read/search]";
// cause null, no stack frames, no suppressed, no headers, no metadata.
const std::string kEmptyEsTail = "00 00 00 00 00";

std::shared_ptr<const RemoteException> wrap(std::shared_ptr<const RemoteException> cause) {
  return wrapInRemoteTransport("es-node", "127.0.0.1:9300", "indices:data/read/search",
                               std::move(cause));
}

struct Case {
  const char* name;
  std::shared_ptr<const RemoteException> exception;
  TransportVersion version;
  std::string hex;
};

std::vector<Case> cases() {
  auto boom = exceptionFromTypeAndMessage("exception", "boom");
  auto iae = exceptionFromTypeAndMessage("illegal_argument_exception", "bad [x]");
  auto ise = exceptionFromTypeAndMessage("illegal_state_exception", "not now");
  const CircuitBreakingError breaker(inFlightBreakerMessage("indices:data/read/search", 2048, 1024),
                                     2048, 1024, CircuitBreakingError::Durability::kTransient);
  const TooManyBucketsError buckets("Trying to create too many buckets", 65536);
  const ActionNotFoundError missing("x");
  auto disconnected =
      exceptionFromTypeAndMessage("node_disconnected_exception", "[n] disconnected");
  auto timeout =
      exceptionFromTypeAndMessage("receive_timeout_transport_exception", "[n] timed out");
  auto custom = exceptionFromTypeAndMessage("index_not_found_exception", "no such index [logs]");
  const std::string breaker_text =
      "[inflight_requests] Data too large, data for [indices:data/read/search] would be "
      "[2048/2kb], which is larger than the limit of [1024/1kb]";
  return {
      // The frame-level vector: RemoteTransportException (103) around
      // ElasticsearchException (68) "boom", then nine 00.
      {"generic in wrapper at 8.7", wrap(boom), kV8_7,
       "01 00 67 " + opt(kWrapperMessage) + " 01 00 44 " + opt("boom") + " 00 00 00 00 00" +
           " 00 00 00 00"},
      // Below 8.1.0 ActionTransportException also writes a missing address and action.
      {"generic in wrapper at 7.17", wrap(boom), kV7_17,
       "01 00 67 " + opt(kWrapperMessage) + " 01 00 44 " + opt("boom") + " 00 00 00 00 00" +
           " 00 00 00 00 00 00"},
      {"illegal argument", iae, kV8_7, "01 06 " + opt("bad [x]") + " 00 00 00"},
      {"illegal state", ise, kV8_7, "01 0e " + opt("not now") + " 00 00 00"},
      {"circuit breaking", breaker.remoteException(), kV8_7,
       "01 00 85 01 01 89 01 " +
           toHex(std::vector<uint8_t>(breaker_text.begin(), breaker_text.end())) + " " +
           kEmptyEsTail + " 00 00 00 00 00 00 04 00 00 00 00 00 00 00 08 00 00"},
      {"too many buckets", buckets.remoteException(), kV8_7,
       "01 00 95 01 " + opt("Trying to create too many buckets") + " " + kEmptyEsTail +
           " 00 01 00 00"},
      {"action not found", missing.remoteException(), kV8_7,
       "01 00 65 " + opt("No handler for action [x]") + " " + kEmptyEsTail + " " + opt("x")},
      {"node disconnected at 8.7", disconnected, kV8_7,
       "01 00 54 " + opt("[n] disconnected") + " " + kEmptyEsTail},
      {"node disconnected at 7.17", disconnected, kV7_17,
       "01 00 54 " + opt("[n] disconnected") + " " + kEmptyEsTail + " 00 00 00"},
      {"receive timeout at 8.7", timeout, kV8_7,
       "01 00 53 " + opt("[n] timed out") + " " + kEmptyEsTail},
      {"receive timeout at 7.17", timeout, kV7_17,
       "01 00 53 " + opt("[n] timed out") + " " + kEmptyEsTail + " 00 00"},
      // A type ES would not know by our hand: NotSerializableExceptionWrapper (62).
      {"wrapped type", custom, kV8_7,
       "01 00 3e " + opt("index_not_found_exception: no such index [logs]") + " " + kEmptyEsTail +
           " " + str("index_not_found_exception")},
  };
}

TEST(RemoteException, WritesAsEs) {
  for (const Case& c : cases()) {
    for (size_t page : kPageSizes) {
      EXPECT_EQ(
          toHex(writeAt(
              page, [&](StreamOutput& out) { writeException(out, c.exception.get()); }, c.version)),
          toHex(hexBytes(c.hex)))
          << c.name << ", page " << page;
    }
  }
}

TEST(RemoteException, ReadsWhatEsWritesAndEveryPrefixFails) {
  for (const Case& c : cases()) {
    const std::vector<uint8_t> bytes = hexBytes(c.hex);
    for (size_t page : {1, 3, 16384}) {
      readAll(
          bytes, page,
          [&](StreamInput& in) {
            auto back = readException(in);
            ASSERT_TRUE(back);
            EXPECT_FALSE(back->partial) << c.name;
            EXPECT_EQ(back->type, c.exception->type) << c.name;
            EXPECT_EQ(back->message, c.exception->message) << c.name;
            EXPECT_EQ(
                toHex(writeAt(
                    16384, [&](StreamOutput& out) { writeException(out, back.get()); }, c.version)),
                toHex(bytes))
                << c.name;
          },
          c.version);
      expectEveryPrefixFails(
          bytes, page, [](StreamInput& in) { (void)readException(in); }, c.version);
    }
  }
}

TEST(RemoteException, TypedErrorsCarryTheirFields) {
  auto read = [](const std::string& hex) {
    const std::vector<uint8_t> bytes = hexBytes(hex);
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(TransportVersion::V_8_7_0);
    return readException(in);
  };
  for (const Case& c : cases()) {
    auto e = read(c.hex);
    try {
      std::rethrow_exception(remoteErrorFor(e));
    } catch (const CircuitBreakingError& err) {
      EXPECT_EQ(err.bytesWanted(), 2048);
      EXPECT_EQ(err.bytesLimit(), 1024);
      EXPECT_EQ(err.durability(), CircuitBreakingError::Durability::kTransient);
      EXPECT_EQ(err.type(), "circuit_breaking_exception");
    } catch (const TooManyBucketsError& err) {
      EXPECT_EQ(err.maxBuckets(), 65536);
    } catch (const ActionNotFoundError& err) {
      EXPECT_EQ(err.action(), "x");
      EXPECT_STREQ(err.what(), "No handler for action [x]");
    } catch (const RemoteIllegalArgumentError& err) {
      EXPECT_STREQ(err.what(), "bad [x]");
    } catch (const RemoteIllegalStateError& err) {
      EXPECT_STREQ(err.what(), "not now");
    } catch (const RemoteNodeDisconnectedError& err) {
      EXPECT_EQ(err.type(), "node_disconnected_exception");
    } catch (const RemoteReceiveTimeoutError& err) {
      EXPECT_EQ(err.type(), "receive_timeout_transport_exception");
    } catch (const RemoteTransportError& err) {
      // The generic ones: the wrapper is unwrapped, a wrapped type reads back.
      if (e->es_id == 103) {
        EXPECT_EQ(err.type(), "exception");
        EXPECT_STREQ(err.what(), "boom");
        EXPECT_EQ(err.wrapperMessage(), kWrapperMessage);
      } else {
        EXPECT_EQ(err.type(), "index_not_found_exception");
        EXPECT_STREQ(err.what(), "no such index [logs]");
      }
    }
  }
}

// An id whose fields we do not know, even one ES 8.7 does not have, reads as a
// generic remote error; the rest of the body is not looked at.
TEST(RemoteException, UnknownIdsReadAsGenericRemoteErrors) {
  // IndexNotFoundException (16) in a wrapper, then bytes of its own fields.
  const std::vector<uint8_t> known_bytes =
      hexBytes("01 00 67 " + opt(kWrapperMessage) + " 01 00 10 " + opt("no such index [a]") +
               " 00 00 00 01 " + str("es.index") + " 01 " + str("a") + " 00 ff ff");
  ByteArrayStreamInput known_id(known_bytes);
  auto e = readException(known_id);
  RemoteTransportError err(e);
  EXPECT_EQ(err.type(), "index_not_found_exception");
  EXPECT_STREQ(err.what(), "no such index [a]");
  EXPECT_TRUE(err.cause().partial);
  EXPECT_EQ(err.headers().at("es.index"), std::vector<std::string>{"a"});

  const std::vector<uint8_t> unknown_id_bytes =
      hexBytes("01 00 e7 07 " + opt("future") + " " + kEmptyEsTail);
  ByteArrayStreamInput unknown_id(unknown_id_bytes);
  auto f = readException(unknown_id);
  EXPECT_EQ(f->type, "exception");
  EXPECT_EQ(f->es_id, 999);
  EXPECT_TRUE(f->partial);

  const std::vector<uint8_t> unknown_kind_bytes = hexBytes("01 13 01 02 03");
  ByteArrayStreamInput unknown_kind(unknown_kind_bytes);
  auto g = readException(unknown_kind);
  EXPECT_EQ(g->type, "exception");
  EXPECT_TRUE(g->partial);
}

TEST(RemoteException, StackFramesAndSuppressedAreReadAndHeadersKept) {
  // IllegalStateException with one stack frame and one suppressed IAE.
  const std::string hex = "01 0e " + opt("outer") + " 00 01 " + str("Foo") + " " + opt("Foo.java") +
                          " " + str("bar") + " 2a 01 01 06 " + opt("inner") + " 00 00 00";
  for (size_t page : {1, 16384}) {
    readAll(hexBytes(hex), page, [](StreamInput& in) {
      auto e = readException(in);
      EXPECT_EQ(e->type, "illegal_state_exception");
      ASSERT_EQ(e->suppressed.size(), 1u);
      EXPECT_EQ(e->suppressed[0]->message, "inner");
    });
    expectEveryPrefixFails(hexBytes(hex), page, [](StreamInput& in) { (void)readException(in); });
  }
}

TEST(RemoteException, HostileNestingIsBounded) {
  std::string hex;
  for (int i = 0; i < 150; ++i) hex += "01 06 00 ";  // IAE, no message, cause follows
  hex += "00";
  for (int i = 0; i < 150; ++i) hex += " 00 00";
  const std::vector<uint8_t> bytes = hexBytes(hex);
  ByteArrayStreamInput in(bytes);
  EXPECT_THROW(readException(in), LimitExceededError);
}

TEST(RemoteException, WriterCutsNestingAsEsDoes) {
  std::shared_ptr<const RemoteException> chain;
  for (int i = 0; i < 120; ++i) {
    auto e = std::make_shared<RemoteException>(
        *exceptionFromTypeAndMessage("illegal_argument_exception", "x"));
    e->cause = chain;
    chain = e;
  }
  std::vector<uint8_t> bytes =
      writeAt(16384, [&](StreamOutput& out) { writeException(out, chain.get()); });
  ByteArrayStreamInput in(bytes);
  in.setMaxNestingDepth(200);
  auto back = readException(in);
  EXPECT_EQ(in.available(), 0u);
  int depth = 0;
  const RemoteException* last = back.get();
  for (const RemoteException* p = back.get(); p; p = p->cause.get()) {
    ++depth;
    last = p;
  }
  EXPECT_EQ(depth, 102);  // levels 0..100, then ES's replacement
  EXPECT_EQ(last->message, "too many nested exceptions");
}

TEST(RemoteException, BadDurabilityIsCorrupt) {
  const std::vector<uint8_t> bytes = hexBytes(
      "01 00 85 01 00 " + kEmptyEsTail + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02");
  ByteArrayStreamInput in(bytes);
  EXPECT_THROW(readException(in), CorruptStreamError);
}

TEST(RemoteException, FromCppErrors) {
  auto of = [](auto e) { return exceptionFromError(std::make_exception_ptr(e)); };
  EXPECT_EQ(of(std::invalid_argument("a"))->java_kind, 6);
  EXPECT_EQ(of(std::logic_error("a"))->type, "illegal_state_exception");
  EXPECT_EQ(of(EndOfStreamError("a"))->java_kind, 8);
  EXPECT_EQ(of(TransportError("circuit_breaking_exception", "a"))->es_id, 133);
  EXPECT_EQ(of(TransportError("my_type", "a"))->es_id, 62);
  EXPECT_EQ(
      of(CircuitBreakingError("m", 5, 4, CircuitBreakingError::Durability::kPermanent))->durability,
      1);
}

// A reduce in a handler (aggregations' ReduceContext) crosses as ES's
// too_many_buckets_exception (id 149) with its max_buckets.
TEST(RemoteException, ReduceBudgetCrossesAsTooManyBuckets) {
  auto e = exceptionFromError(std::make_exception_ptr(::wirestream::TooManyBucketsError(10, 11)));
  EXPECT_EQ(e->es_id, 149);
  EXPECT_EQ(e->type, "too_many_buckets_exception");
  EXPECT_EQ(e->max_buckets, 10);
  EXPECT_EQ(e->message,
            "Trying to create too many buckets. Must be less than or equal to: [10] but was [11]. "
            "This limit can be set by changing the [search.max_buckets] cluster level setting.");
}

TEST(RemoteException, InvalidUtf8InMessagesIsReplaced) {
  auto e = exceptionFromTypeAndMessage("illegal_argument_exception", "\xff");
  EXPECT_EQ(toHex(writeAt(16384, [&](StreamOutput& out) { writeException(out, e.get()); })),
            "01 06 01 01 3f 00 00 00");
}

// The registry after 8.7, from ES 8.19.21's and 9.5.3's ElasticsearchExceptionHandle (javap):
// ids 162 to 197, each named at the versions that have it; 185 is two classes.
TEST(RemoteException, RegistryIdsAfter87ByVersion) {
  EXPECT_EQ(esExceptionName(162), "authentication_processing_error");
  EXPECT_EQ(esExceptionName(163), "repository_conflict_exception");
  EXPECT_EQ(esExceptionName(167), "unsupported_aggregation_on_downsampled_index");
  EXPECT_EQ(esExceptionName(168), "document_parsing_exception");
  EXPECT_EQ(esExceptionName(169), "http_headers_validation_exception");
  EXPECT_EQ(esExceptionName(174), "invalid_path");
  EXPECT_EQ(esExceptionName(183), "exception_with_failure_store_status");
  EXPECT_EQ(esExceptionName(184), "remote_exception");
  EXPECT_EQ(esExceptionName(188), "search_context_missing_nodes_exception");
  EXPECT_EQ(esExceptionName(189), "o_c_c_not_supported_exception");
  EXPECT_EQ(esExceptionName(197), "recovery_cancelled_exception");
  EXPECT_EQ(esExceptionName(198), "");
  EXPECT_EQ(esExceptionName(161), "version_mismatch_exception");  // left ES with 9.0
  // 185: the 8.19 line's SearchContextMissingNodesException (from 8841085), 9.x's
  // NoMatchingProjectException (from 9178000).
  EXPECT_EQ(esExceptionName(185), "no_matching_project_exception");
  EXPECT_EQ(esExceptionName(185, TransportVersion(8841096)),  // 8.19.21
            "search_context_missing_nodes_exception");
  EXPECT_EQ(esExceptionName(185, TransportVersion(9458007)),  // 9.5.3
            "no_matching_project_exception");
  // Below every gate of an id ES still reads it (it reads any id it knows): the oldest class.
  EXPECT_EQ(esExceptionName(185, TransportVersion::V_8_7_0),
            "search_context_missing_nodes_exception");
  EXPECT_EQ(esExceptionName(177, TransportVersion(7172999)), "graph_structure_exception");
  EXPECT_EQ(esExceptionName(10, TransportVersion(9458007)), "");

  // readException names by the stream's version.
  const std::vector<uint8_t> bytes = hexBytes("01 00 b9 01 " + opt("gone") + " " + kEmptyEsTail);
  for (auto [id, want] : {std::pair{8841096, "search_context_missing_nodes_exception"},
                          std::pair{9458007, "no_matching_project_exception"}}) {
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(TransportVersion(id));
    auto e = readException(in);
    EXPECT_EQ(e->es_id, 185);
    EXPECT_EQ(e->type, want);
    EXPECT_EQ(e->message, "gone");
    EXPECT_TRUE(e->partial);
  }
}

TEST(RemoteException, EsNamesAndHumanSizes) {
  EXPECT_EQ(esExceptionName(68), "exception");
  EXPECT_EQ(esExceptionName(4), "security_exception");
  EXPECT_EQ(esExceptionName(133), "circuit_breaking_exception");
  EXPECT_EQ(esExceptionName(10), "");
  struct {
    int64_t bytes;
    const char* text;
  } sizes[] = {{0, "0b"},           {100, "100b"},          {1023, "1023b"},
               {1024, "1kb"},       {1126, "1kb"},          {1536, "1.5kb"},
               {2047, "1.9kb"},     {1048576, "1mb"},       {536870912, "512mb"},
               {1073741824, "1gb"}, {3298534883328, "3tb"}, {int64_t{1} << 50, "1pb"}};
  for (const auto& s : sizes) EXPECT_EQ(humanBytes(s.bytes), s.text) << s.bytes;
}

}  // namespace
}  // namespace wirestream::transport
