// Whole-aggregation serialization, the shape of Elasticsearch's
// StringTermsSerializationBenchmark: an InternalAggregations holding one
// StringTerms "test" of N buckets ("test"+i, docCount i), each bucket holding
// a StringTerms of N buckets with no sub-aggregations; N = 1000 gives
// 1,000,000 leaf buckets. The fields are ES's: key order both ways,
// requiredSize = shardSize = N, minDocCount 1, no docCountError, format raw,
// otherDocCount 100000.
//
//   BM_StringTermsSerialize_Wirestream/N    writeTo a reused BytesStreamOutput
//                                           (reset() each time: pages go back
//                                           to the recycler and come again)
//   BM_StringTermsSerialize_Protobuf/N      SerializeToArray of the same tree
//                                           (string_terms.proto) into a
//                                           reused buffer
//   BM_StringTermsDeserialize_Wirestream/N  InternalAggregations::readFrom a
//                                           flat copy of our bytes
//   BM_StringTermsDeserialize_Protobuf/N    ParseFromArray into a fresh message
//   BM_StringTermsDeserialize_ProtobufArena/N  the same into a message on a
//                                           fresh Arena (how protobuf users
//                                           parse large messages)
//   BM_StringTerms{Serialize,Deserialize}_{FlatBuffers,CapnProto,Cereal,Msgpack}/N
//                                           more peers on the same tree:
//     FlatBuffers  serialize: build the buffer from our tree (reused builder);
//                  deserialize: Verifier, then a walk of every leaf
//     CapnProto    serialize: build the message from our tree (one segment);
//                  deserialize: FlatArrayMessageReader, then a walk
//     Cereal       binary archive of plain structs (built once, as protobuf's
//                  messages are) into a reused buffer / into fresh structs
//     Msgpack      msgpack::pack of the same structs into a reused sbuffer /
//                  unpack and convert into fresh structs
//   BM_Memcpy_StringTermsBytes/N            memcpy of as many bytes as our
//                                           serialized tree has: the bound
//   BM_Walk_StringTermsTree/N               reads what writeTo reads, writes
//                                           nothing: the other bound
//   BM_StringTermsReduce_Wirestream/N       final reduce of two shards' copies
//                                           of the tree (the coordinator's work;
//                                           max_buckets lifted)
//   BM_StringTermsReduce_Wirestream3Shards/N  the same over three copies
//
// Data sets (built by bench/inputs.h), each named in the benchmark name:
//   (no suffix)    the shape of ES's benchmark above: keys "test0".."test999"
//                  (<= 7 bytes: inside std::string's inline buffer), doc
//                  counts 0..999
//   _Realistic     keys of 16..40 random lowercase bytes (beyond the inline
//                  buffer), Zipf doc counts (10^6 / rank), outer counts their
//                  sums
//
// Deserializers build a fresh tree every iteration and destroy it inside the
// timed loop, as a node receiving a response does; both read from one flat
// buffer. Inputs are built once, outside every timed loop, and checked: our
// bytes read back equal to the tree, protobuf's parse back to N*N leaves.
//
// Memory counters, in //bench:alloc_bench only (MemoryProbe: every operator
// new of that binary; the timed binary keeps the plain allocator):
//   allocs_per_iter    allocations per timed iteration (warm);
//   peak_extra_bytes   the most live heap above the starting point during one
//                      untimed cold run: serializers into a fresh output (a
//                      fresh PageRecycler for ours), deserializers including
//                      the tree they build;
//   output_bytes       the serialized size.
#include <benchmark/benchmark.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <google/protobuf/arena.h>

#include <algorithm>
#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <msgpack.hpp>
#include <streambuf>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "bench/inputs.h"
#include "bench/memory_probe.h"
#include "bench/string_terms.capnp.h"
#include "bench/string_terms.pb.h"
#include "bench/string_terms_generated.h"
#include "stream/bytes_stream_output.h"
#include "stream/page_recycler.h"
#include "stream/stream_input.h"

namespace wirestream::bench {
namespace {

namespace agg = wirestream::aggregations;

// wire-format §7 BucketOrder ids.
constexpr uint32_t kKeyAsc = 4;
using Shape = TreeShape;

const agg::StringTerms& asTerms(const agg::InternalAggregation& a) {
  return static_cast<const agg::StringTerms&>(a);
}

// Every peer's message is made from our tree, field for field.
void fillProto(pb::StringTerms& terms, const agg::StringTerms& ours) {
  terms.set_name(ours.getName());
  terms.mutable_reduce_order()->set_id(kKeyAsc);
  terms.mutable_order()->set_id(kKeyAsc);
  terms.set_required_size(static_cast<uint32_t>(ours.requiredSize()));
  terms.set_min_doc_count(static_cast<uint64_t>(ours.minDocCount()));
  terms.set_format("raw");
  terms.set_shard_size(static_cast<uint32_t>(ours.shardSize()));
  terms.set_show_term_doc_count_error(false);
  terms.set_other_doc_count(static_cast<uint64_t>(ours.otherDocCount()));
  terms.mutable_buckets()->Reserve(static_cast<int>(ours.buckets().size()));
  for (const auto& b : ours.buckets()) {
    pb::Bucket* bucket = terms.add_buckets();
    bucket->set_key(std::string(b.key));
    bucket->set_doc_count(static_cast<uint64_t>(b.doc_count));
    for (const auto& sub : b.aggregations.list()) {
      fillProto(*bucket->mutable_aggregations()->add_aggregations()->mutable_sterms(),
                asTerms(*sub));
    }
  }
}

flatbuffers::Offset<fb::StringTerms> buildFlatBuffer(flatbuffers::FlatBufferBuilder& fbb,
                                                     const agg::StringTerms& ours) {
  std::vector<flatbuffers::Offset<fb::Bucket>> buckets;
  buckets.reserve(ours.buckets().size());
  for (const auto& b : ours.buckets()) {
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::StringTerms>>> subs;
    if (!b.aggregations.empty()) {
      std::vector<flatbuffers::Offset<fb::StringTerms>> list;
      for (const auto& sub : b.aggregations.list())
        list.push_back(buildFlatBuffer(fbb, asTerms(*sub)));
      subs = fbb.CreateVector(list);
    }
    auto key = fbb.CreateVector(reinterpret_cast<const uint8_t*>(b.key.data()), b.key.size());
    buckets.push_back(fb::CreateBucket(fbb, static_cast<uint64_t>(b.doc_count), 0, subs, key));
  }
  auto bucket_vector = fbb.CreateVector(buckets);
  auto name = fbb.CreateString(ours.getName());
  auto format = fbb.CreateString("raw");
  return fb::CreateStringTerms(fbb, name, kKeyAsc, kKeyAsc,
                               static_cast<uint32_t>(ours.requiredSize()),
                               static_cast<uint64_t>(ours.minDocCount()), false, 0, format,
                               static_cast<uint32_t>(ours.shardSize()), false,
                               static_cast<uint64_t>(ours.otherDocCount()), bucket_vector);
}

void buildFlatBuffer(flatbuffers::FlatBufferBuilder& fbb, const agg::InternalAggregations& ours) {
  std::vector<flatbuffers::Offset<fb::StringTerms>> list;
  for (const auto& a : ours.list()) list.push_back(buildFlatBuffer(fbb, asTerms(*a)));
  fbb.Finish(fb::CreateInternalAggregations(fbb, fbb.CreateVector(list)));
}

void buildCapnp(cp::StringTerms::Builder terms, const agg::StringTerms& ours) {
  terms.setName(ours.getName().c_str());
  terms.setReduceOrder(kKeyAsc);
  terms.setOrder(kKeyAsc);
  terms.setRequiredSize(static_cast<uint32_t>(ours.requiredSize()));
  terms.setMinDocCount(static_cast<uint64_t>(ours.minDocCount()));
  terms.setFormat("raw");
  terms.setShardSize(static_cast<uint32_t>(ours.shardSize()));
  terms.setOtherDocCount(static_cast<uint64_t>(ours.otherDocCount()));
  auto buckets = terms.initBuckets(static_cast<unsigned>(ours.buckets().size()));
  unsigned i = 0;
  for (const auto& b : ours.buckets()) {
    auto bucket = buckets[i++];
    bucket.setDocCount(static_cast<uint64_t>(b.doc_count));
    if (!b.aggregations.empty()) {
      auto subs = bucket.initAggregations(static_cast<unsigned>(b.aggregations.size()));
      for (unsigned k = 0; k < b.aggregations.size(); ++k)
        buildCapnp(subs[k], asTerms(b.aggregations[k]));
    }
    bucket.setKey(kj::arrayPtr(reinterpret_cast<const kj::byte*>(b.key.data()), b.key.size()));
  }
}

void buildCapnp(capnp::MessageBuilder& message, const agg::InternalAggregations& ours) {
  auto list = message.initRoot<cp::InternalAggregations>().initAggregations(
      static_cast<unsigned>(ours.size()));
  for (unsigned i = 0; i < ours.size(); ++i) buildCapnp(list[i], asTerms(ours[i]));
}

// cereal's and msgpack's data model: plain structs, as their users write.
struct PlainTerms;
struct PlainBucket {
  uint64_t doc_count = 0;
  int64_t doc_count_error = 0;
  std::vector<PlainTerms> aggregations;
  std::string key;
  template <class Archive>
  void serialize(Archive& a) {
    a(doc_count, doc_count_error, aggregations, key);
  }
  MSGPACK_DEFINE(doc_count, doc_count_error, aggregations, key);
};
struct PlainTerms {
  std::string name;
  uint32_t reduce_order = 0, order = 0, required_size = 0;
  uint64_t min_doc_count = 0;
  bool has_doc_count_error = false;
  int64_t doc_count_error = 0;
  std::string format;
  uint32_t shard_size = 0;
  bool show_term_doc_count_error = false;
  uint64_t other_doc_count = 0;
  std::vector<PlainBucket> buckets;
  template <class Archive>
  void serialize(Archive& a) {
    a(name, reduce_order, order, required_size, min_doc_count, has_doc_count_error, doc_count_error,
      format, shard_size, show_term_doc_count_error, other_doc_count, buckets);
  }
  MSGPACK_DEFINE(name, reduce_order, order, required_size, min_doc_count, has_doc_count_error,
                 doc_count_error, format, shard_size, show_term_doc_count_error, other_doc_count,
                 buckets);
};
struct PlainAggs {
  std::vector<PlainTerms> aggregations;
  template <class Archive>
  void serialize(Archive& a) {
    a(aggregations);
  }
  MSGPACK_DEFINE(aggregations);
};

PlainTerms plainOf(const agg::StringTerms& ours) {
  PlainTerms t;
  t.name = ours.getName();
  t.reduce_order = t.order = kKeyAsc;
  t.required_size = static_cast<uint32_t>(ours.requiredSize());
  t.min_doc_count = static_cast<uint64_t>(ours.minDocCount());
  t.format = "raw";
  t.shard_size = static_cast<uint32_t>(ours.shardSize());
  t.other_doc_count = static_cast<uint64_t>(ours.otherDocCount());
  t.buckets.reserve(ours.buckets().size());
  for (const auto& b : ours.buckets()) {
    PlainBucket& p = t.buckets.emplace_back();
    p.doc_count = static_cast<uint64_t>(b.doc_count);
    p.key = std::string(b.key);
    for (const auto& sub : b.aggregations.list()) p.aggregations.push_back(plainOf(asTerms(*sub)));
  }
  return t;
}

// Appends what a cereal archive writes to a reused vector.
class VectorSink final : public std::streambuf {
 public:
  explicit VectorSink(std::vector<char>& out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.insert(out_.end(), s, s + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) out_.push_back(static_cast<char>(c));
    return c;
  }

 private:
  std::vector<char>& out_;
};

// Reads memory it does not own, for cereal's input archive.
class MemorySource final : public std::streambuf {
 public:
  MemorySource(const char* data, size_t size) {
    char* p = const_cast<char*>(data);  // the get area is only read
    setg(p, p, p + size);
  }
};

// Sums what a reader would look at in each leaf (its doc count, key size and
// first key byte), so a lazy format's deserialize touches every leaf.
template <class Terms>
void walkFlat(const Terms* terms, uint64_t& sum, size_t& leaves) {
  for (const auto* b : *terms->buckets()) {
    if (b->aggregations() != nullptr && b->aggregations()->size() > 0) {
      for (const auto* sub : *b->aggregations()) walkFlat(sub, sum, leaves);
      continue;
    }
    const auto* key = b->key();
    sum += b->doc_count() + key->size() + (key->size() ? key->Get(0) : 0);
    ++leaves;
  }
}

void walkCapnp(cp::StringTerms::Reader terms, uint64_t& sum, size_t& leaves) {
  for (auto b : terms.getBuckets()) {
    if (b.hasAggregations() && b.getAggregations().size() > 0) {
      for (auto sub : b.getAggregations()) walkCapnp(sub, sum, leaves);
      continue;
    }
    auto key = b.getKey();
    sum += b.getDocCount() + key.size() + (key.size() ? key[0] : 0);
    ++leaves;
  }
}

capnp::ReaderOptions capnpOptions() {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = uint64_t{1} << 40;  // a trusted 10^6-leaf message
  return options;
}

// The inputs of one (N, data set), built on first use and kept for the process.
struct Trees {
  agg::InternalAggregations ours;
  std::vector<uint8_t> our_bytes;
  pb::InternalAggregations proto;
  std::string proto_bytes;
  std::vector<uint8_t> flat_bytes;
  size_t capnp_words = 0;
  kj::Array<capnp::word> capnp_bytes;
  PlainAggs plain;
  std::vector<char> cereal_bytes;
  std::vector<char> msgpack_bytes;
  std::string error;  // set if a check failed
};

size_t leafCount(const pb::InternalAggregations& aggs) {
  size_t leaves = 0;
  for (const auto& a : aggs.aggregations()) {
    for (const auto& b : a.sterms().buckets()) {
      leaves += b.has_aggregations() ? leafCount(b.aggregations()) : 1;
    }
  }
  return leaves;
}

size_t leafCount(const PlainAggs& aggs) {
  size_t leaves = 0;
  for (const auto& a : aggs.aggregations) {
    for (const auto& b : a.buckets) {
      for (const auto& sub : b.aggregations) leaves += sub.buckets.size();
    }
  }
  return leaves;
}

const Trees& trees(int n, Shape shape) {
  static auto* cache = new std::map<std::pair<int, Shape>, std::unique_ptr<Trees>>();
  auto& slot = (*cache)[{n, shape}];
  if (slot) return *slot;
  slot = std::make_unique<Trees>();
  Trees& t = *slot;
  t.ours = stringTermsTree(shape, n);
  {
    BytesStreamOutput out;
    t.ours.writeTo(out);
    t.our_bytes = out.bytes().toVector();
  }
  fillProto(*t.proto.add_aggregations()->mutable_sterms(), asTerms(t.ours[0]));
  t.proto_bytes = t.proto.SerializeAsString();
  {
    flatbuffers::FlatBufferBuilder fbb;
    buildFlatBuffer(fbb, t.ours);
    t.flat_bytes.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }
  {
    capnp::MallocMessageBuilder message;
    buildCapnp(message, t.ours);
    t.capnp_bytes = capnp::messageToFlatArray(message);
    t.capnp_words = t.capnp_bytes.size();
  }
  for (const auto& a : t.ours.list()) t.plain.aggregations.push_back(plainOf(asTerms(*a)));
  {
    VectorSink sink(t.cereal_bytes);
    std::ostream os(&sink);
    cereal::BinaryOutputArchive archive(os);
    archive(t.plain);
  }
  {
    msgpack::sbuffer buffer;
    msgpack::pack(buffer, t.plain);
    t.msgpack_bytes.assign(buffer.data(), buffer.data() + buffer.size());
  }

  const size_t leaves = static_cast<size_t>(n) * n;
  ByteArrayStreamInput in(t.our_bytes);
  if (!(agg::InternalAggregations::readFrom(in, agg::defaultRegistry()) == t.ours) ||
      in.available() != 0) {
    t.error = "our bytes do not read back to the tree";
  }
  pb::InternalAggregations parsed;
  if (!parsed.ParseFromString(t.proto_bytes) || leafCount(parsed) != leaves) {
    t.error = "protobuf bytes do not parse back to the tree";
  }
  {
    flatbuffers::Verifier verifier(t.flat_bytes.data(), t.flat_bytes.size(),
                                   /*max_depth=*/64, /*max_tables=*/100000000);
    uint64_t sum = 0;
    size_t walked = 0;
    if (!fb::VerifyInternalAggregationsBuffer(verifier)) {
      t.error = "FlatBuffers bytes do not verify";
    } else {
      for (const auto* a : *fb::GetInternalAggregations(t.flat_bytes.data())->aggregations()) {
        walkFlat(a, sum, walked);
      }
      if (walked != leaves) t.error = "FlatBuffers bytes do not walk back to the tree";
    }
  }
  {
    capnp::FlatArrayMessageReader reader(t.capnp_bytes, capnpOptions());
    uint64_t sum = 0;
    size_t walked = 0;
    for (auto a : reader.getRoot<cp::InternalAggregations>().getAggregations()) {
      walkCapnp(a, sum, walked);
    }
    if (walked != leaves) t.error = "Cap'n Proto bytes do not walk back to the tree";
  }
  {
    MemorySource source(t.cereal_bytes.data(), t.cereal_bytes.size());
    std::istream is(&source);
    cereal::BinaryInputArchive archive(is);
    PlainAggs back;
    archive(back);
    if (leafCount(back) != leaves) t.error = "cereal bytes do not read back to the tree";
  }
  {
    msgpack::object_handle handle = msgpack::unpack(t.msgpack_bytes.data(), t.msgpack_bytes.size());
    PlainAggs back;
    handle.get().convert(back);
    if (leafCount(back) != leaves) t.error = "msgpack bytes do not read back to the tree";
  }
  std::fprintf(stderr,
               "string_terms_bench: %d x %d buckets%s: ours %zu bytes, protobuf %zu, FlatBuffers "
               "%zu, Cap'n Proto %zu, cereal %zu, msgpack %zu\n",
               n, n, shape == TreeShape::kRealistic ? " (realistic)" : "", t.our_bytes.size(),
               t.proto_bytes.size(), t.flat_bytes.size(), t.capnp_words * sizeof(capnp::word),
               t.cereal_bytes.size(), t.msgpack_bytes.size());
  return t;
}

void setCounters(benchmark::State& state, const MemoryProbe& timed, uint64_t cold_peak,
                 size_t output_bytes, int n) {
  if (MemoryProbe::enabled()) {
    state.counters["allocs_per_iter"] = benchmark::Counter(static_cast<double>(timed.allocations()),
                                                           benchmark::Counter::kAvgIterations);
    state.counters["peak_extra_bytes"] = static_cast<double>(cold_peak);
  }
  state.counters["output_bytes"] = static_cast<double>(output_bytes);
  state.SetItemsProcessed(state.iterations() * int64_t{n} * n);  // leaf buckets
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(output_bytes));
}

// Skips the benchmark if the inputs failed their checks.
const Trees* checkedTrees(benchmark::State& state, Shape shape) {
  const Trees& t = trees(static_cast<int>(state.range(0)), shape);
  if (t.error.empty()) return &t;
  state.SkipWithError(t.error.c_str());
  for (auto _ : state) {
  }
  return nullptr;
}

void BM_StringTermsSerialize_Wirestream(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    PageRecycler fresh;
    MemoryProbe cold;
    BytesStreamOutput out(fresh);
    t->ours.writeTo(out);
    cold_peak = cold.peakBytes();
  }
  BytesStreamOutput out;
  t->ours.writeTo(out);  // warm: the recycler now holds every page needed
  out.reset();
  MemoryProbe timed;
  for (auto _ : state) {
    out.reset();
    t->ours.writeTo(out);
    benchmark::ClobberMemory();
  }
  if (out.size() != t->our_bytes.size()) state.SkipWithError("output size changed");
  setCounters(state, timed, cold_peak, out.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_Protobuf(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    std::vector<uint8_t> buffer(t->proto.ByteSizeLong());
    t->proto.SerializeToArray(buffer.data(), static_cast<int>(buffer.size()));
    cold_peak = cold.peakBytes();
  }
  std::vector<uint8_t> buffer(t->proto_bytes.size());
  MemoryProbe timed;
  for (auto _ : state) {
    // SerializeToArray computes the sizes of every sub-message first
    // (ByteSizeLong) and fails if they do not fit.
    if (!t->proto.SerializeToArray(buffer.data(), static_cast<int>(buffer.size()))) {
      state.SkipWithError("SerializeToArray failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, timed, cold_peak, buffer.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Wirestream(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  const auto& registry = agg::defaultRegistry();
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    ByteArrayStreamInput in(t->our_bytes);
    agg::InternalAggregations back = agg::InternalAggregations::readFrom(in, registry);
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    ByteArrayStreamInput in(t->our_bytes);
    agg::InternalAggregations back = agg::InternalAggregations::readFrom(in, registry);
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->our_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Protobuf(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    pb::InternalAggregations back;
    back.ParseFromArray(t->proto_bytes.data(), static_cast<int>(t->proto_bytes.size()));
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    pb::InternalAggregations back;
    if (!back.ParseFromArray(t->proto_bytes.data(), static_cast<int>(t->proto_bytes.size()))) {
      state.SkipWithError("ParseFromArray failed");
      break;
    }
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->proto_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_ProtobufArena(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  auto parse = [t](google::protobuf::Arena& arena) {
    auto* back = google::protobuf::Arena::CreateMessage<pb::InternalAggregations>(&arena);
    return back->ParseFromArray(t->proto_bytes.data(), static_cast<int>(t->proto_bytes.size()));
  };
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    google::protobuf::Arena arena;
    parse(arena);
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    google::protobuf::Arena arena;  // freed with the message, in the loop
    if (!parse(arena)) {
      state.SkipWithError("ParseFromArray failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, timed, cold_peak, t->proto_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_FlatBuffers(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    flatbuffers::FlatBufferBuilder fbb;
    buildFlatBuffer(fbb, t->ours);
    cold_peak = cold.peakBytes();
  }
  flatbuffers::FlatBufferBuilder fbb(t->flat_bytes.size());
  MemoryProbe timed;
  for (auto _ : state) {
    fbb.Clear();  // keeps its buffer
    buildFlatBuffer(fbb, t->ours);
    benchmark::ClobberMemory();
  }
  if (fbb.GetSize() != t->flat_bytes.size()) state.SkipWithError("output size changed");
  setCounters(state, timed, cold_peak, fbb.GetSize(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_FlatBuffers(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  auto verifyAndWalk = [t] {
    flatbuffers::Verifier verifier(t->flat_bytes.data(), t->flat_bytes.size(), 64, 100000000);
    uint64_t sum = 0;
    size_t leaves = 0;
    if (!fb::VerifyInternalAggregationsBuffer(verifier)) return false;
    for (const auto* a : *fb::GetInternalAggregations(t->flat_bytes.data())->aggregations()) {
      walkFlat(a, sum, leaves);
    }
    benchmark::DoNotOptimize(sum);
    return true;
  };
  MemoryProbe timed;
  for (auto _ : state) {
    if (!verifyAndWalk()) {
      state.SkipWithError("Verifier failed");
      break;
    }
  }
  // Verifying and walking allocates nothing: no cold peak to measure.
  setCounters(state, timed, 0, t->flat_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_CapnProto(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  // One first segment as large as the message, as a user sizing it would.
  const auto words = static_cast<unsigned>(t->capnp_words);
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    capnp::MallocMessageBuilder message(words);
    buildCapnp(message, t->ours);
    cold_peak = cold.peakBytes();
  }
  size_t size = 0;
  MemoryProbe timed;
  for (auto _ : state) {
    capnp::MallocMessageBuilder message(words);
    buildCapnp(message, t->ours);
    size = capnp::computeSerializedSizeInWords(message) * sizeof(capnp::word);
    benchmark::ClobberMemory();
  }
  setCounters(state, timed, cold_peak, size, static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_CapnProto(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    capnp::FlatArrayMessageReader reader(t->capnp_bytes, capnpOptions());
    uint64_t sum = 0;
    size_t leaves = 0;
    for (auto a : reader.getRoot<cp::InternalAggregations>().getAggregations()) {
      walkCapnp(a, sum, leaves);
    }
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    capnp::FlatArrayMessageReader reader(t->capnp_bytes, capnpOptions());
    uint64_t sum = 0;
    size_t leaves = 0;
    for (auto a : reader.getRoot<cp::InternalAggregations>().getAggregations()) {
      walkCapnp(a, sum, leaves);
    }
    benchmark::DoNotOptimize(sum);
  }
  setCounters(state, timed, cold_peak, t->capnp_words * sizeof(capnp::word),
              static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_Cereal(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    std::vector<char> fresh;
    VectorSink sink(fresh);
    std::ostream os(&sink);
    cereal::BinaryOutputArchive archive(os);
    archive(t->plain);
    cold_peak = cold.peakBytes();
  }
  std::vector<char> buffer;
  buffer.reserve(t->cereal_bytes.size());
  MemoryProbe timed;
  for (auto _ : state) {
    buffer.clear();  // keeps its capacity
    VectorSink sink(buffer);
    std::ostream os(&sink);
    cereal::BinaryOutputArchive archive(os);
    archive(t->plain);
    benchmark::ClobberMemory();
  }
  if (buffer.size() != t->cereal_bytes.size()) state.SkipWithError("output size changed");
  setCounters(state, timed, cold_peak, buffer.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Cereal(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    MemorySource source(t->cereal_bytes.data(), t->cereal_bytes.size());
    std::istream is(&source);
    cereal::BinaryInputArchive archive(is);
    PlainAggs back;
    archive(back);
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    MemorySource source(t->cereal_bytes.data(), t->cereal_bytes.size());
    std::istream is(&source);
    cereal::BinaryInputArchive archive(is);
    PlainAggs back;
    archive(back);
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->cereal_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_Msgpack(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    msgpack::sbuffer fresh;
    msgpack::pack(fresh, t->plain);
    cold_peak = cold.peakBytes();
  }
  msgpack::sbuffer buffer(t->msgpack_bytes.size());
  MemoryProbe timed;
  for (auto _ : state) {
    buffer.clear();  // keeps its capacity
    msgpack::pack(buffer, t->plain);
    benchmark::ClobberMemory();
  }
  if (buffer.size() != t->msgpack_bytes.size()) state.SkipWithError("output size changed");
  setCounters(state, timed, cold_peak, buffer.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Msgpack(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    msgpack::object_handle handle =
        msgpack::unpack(t->msgpack_bytes.data(), t->msgpack_bytes.size());
    PlainAggs back;
    handle.get().convert(back);
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    msgpack::object_handle handle =
        msgpack::unpack(t->msgpack_bytes.data(), t->msgpack_bytes.size());
    PlainAggs back;
    handle.get().convert(back);
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->msgpack_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_Memcpy_StringTermsBytes(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  const std::vector<uint8_t>& src = t->our_bytes;
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * n * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(src.size()));
}

// Not a peer: touches every field writeTo reads (each bucket's key, doc
// count and sub-aggregation count) and writes nothing. Serializing cannot be
// faster than walking the tree; 10^6 buckets of 72 bytes do not fit in L3,
// while the memcpy bound's 10.8 MB does.
void BM_Walk_StringTermsTree(benchmark::State& state, Shape shape) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const auto& top : t->ours.list()) {
      for (const auto& bucket : static_cast<const agg::StringTerms&>(*top).buckets()) {
        for (const auto& inner : bucket.aggregations.list()) {
          for (const auto& leaf : static_cast<const agg::StringTerms&>(*inner).buckets()) {
            // The key's first byte and size touch its cache lines (short keys
            // live inside the bucket); copying them is writeTo's work.
            sum += static_cast<uint64_t>(leaf.doc_count) + leaf.aggregations.size() +
                   leaf.key.size() + static_cast<uint8_t>(leaf.key.front());
          }
        }
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * n * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(t->our_bytes.size()));
}

// The coordinator's final reduce of `shards` copies of the tree. The budget
// is lifted: the tree has 10^6 buckets, over ES's default max_buckets.
void reduceShards(benchmark::State& state, Shape shape, size_t shards) {
  const Trees* t = checkedTrees(state, shape);
  if (!t) return;
  std::vector<const agg::InternalAggregations*> lists(shards, &t->ours);
  const agg::ReduceContext context =
      agg::ReduceContext::finalReduce(std::numeric_limits<int32_t>::max());
  for (auto _ : state) {
    agg::InternalAggregations reduced = agg::InternalAggregations::reduce(lists, context);
    benchmark::DoNotOptimize(reduced);
  }
  const int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(shards) * n * n);
}

void BM_StringTermsReduce_Wirestream(benchmark::State& state, Shape shape) {
  reduceShards(state, shape, 2);
}

void BM_StringTermsReduce_Wirestream3Shards(benchmark::State& state, Shape shape) {
  reduceShards(state, shape, 3);
}

// Every benchmark runs on both data sets: the ES shape under the pinned names,
// the realistic one with "_Realistic" before the argument.
using TreeBenchmark = void (*)(benchmark::State&, Shape);

void registerAll() {
  const std::pair<const char*, TreeBenchmark> all[] = {
      {"BM_StringTermsSerialize_Wirestream", BM_StringTermsSerialize_Wirestream},
      {"BM_StringTermsSerialize_Protobuf", BM_StringTermsSerialize_Protobuf},
      {"BM_StringTermsSerialize_FlatBuffers", BM_StringTermsSerialize_FlatBuffers},
      {"BM_StringTermsSerialize_CapnProto", BM_StringTermsSerialize_CapnProto},
      {"BM_StringTermsSerialize_Cereal", BM_StringTermsSerialize_Cereal},
      {"BM_StringTermsSerialize_Msgpack", BM_StringTermsSerialize_Msgpack},
      {"BM_StringTermsDeserialize_Wirestream", BM_StringTermsDeserialize_Wirestream},
      {"BM_StringTermsDeserialize_Protobuf", BM_StringTermsDeserialize_Protobuf},
      {"BM_StringTermsDeserialize_ProtobufArena", BM_StringTermsDeserialize_ProtobufArena},
      {"BM_StringTermsDeserialize_FlatBuffers", BM_StringTermsDeserialize_FlatBuffers},
      {"BM_StringTermsDeserialize_CapnProto", BM_StringTermsDeserialize_CapnProto},
      {"BM_StringTermsDeserialize_Cereal", BM_StringTermsDeserialize_Cereal},
      {"BM_StringTermsDeserialize_Msgpack", BM_StringTermsDeserialize_Msgpack},
      {"BM_Memcpy_StringTermsBytes", BM_Memcpy_StringTermsBytes},
      {"BM_Walk_StringTermsTree", BM_Walk_StringTermsTree},
      {"BM_StringTermsReduce_Wirestream", BM_StringTermsReduce_Wirestream},
      {"BM_StringTermsReduce_Wirestream3Shards", BM_StringTermsReduce_Wirestream3Shards},
  };
  for (Shape shape : {TreeShape::kEs, TreeShape::kRealistic}) {
    for (const auto& [name, fn] : all) {
      std::string full = std::string(name) + (shape == TreeShape::kRealistic ? "_Realistic" : "");
      // Iterations take milliseconds: report them in ms. (MinTime or
      // UseRealTime here would append "/min_time:..." or "/real_time" to the
      // pinned names.)
      benchmark::RegisterBenchmark(full.c_str(),
                                   [fn = fn, shape](benchmark::State& state) { fn(state, shape); })
          ->Arg(1000)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

const bool kRegistered = (registerAll(), true);

}  // namespace
}  // namespace wirestream::bench
