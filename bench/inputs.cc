#include "bench/inputs.h"

#include <memory>
#include <random>
#include <utility>

#include "aggregations/terms.h"

namespace wirestream::bench {
namespace {

namespace agg = wirestream::aggregations;

// Values of exactly `width` VInt bytes (1..5).
uint32_t drawOfWidth(std::mt19937& rng, int width) {
  uint64_t lo = width == 1 ? 0 : uint64_t{1} << (7 * (width - 1));
  uint64_t hi = width == 5 ? uint64_t{0xFFFFFFFF} : (uint64_t{1} << (7 * width)) - 1;
  return static_cast<uint32_t>(std::uniform_int_distribution<uint64_t>(lo, hi)(rng));
}

// Elasticsearch's writeVInt, the byte-at-a-time loop: the reference bytes.
std::vector<uint8_t> referenceEncoding(const std::vector<uint32_t>& values) {
  std::vector<uint8_t> out;
  for (uint32_t v : values) {
    while ((v & ~0x7Fu) != 0) {
      out.push_back(static_cast<uint8_t>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
  }
  return out;
}

// min_width 0: geometric values of mean 100.
Workload makeWorkload(const std::string& name, int min_width, int max_width) {
  Workload w{name, {}, {}};
  std::mt19937 rng(kVarintSeed);
  std::uniform_int_distribution<int> width(min_width, max_width);
  std::geometric_distribution<uint32_t> geometric(1.0 / 101);
  w.values.reserve(kVarintValues);
  for (size_t i = 0; i < kVarintValues; ++i) {
    w.values.push_back(min_width == 0 ? geometric(rng) : drawOfWidth(rng, width(rng)));
  }
  w.encoded = referenceEncoding(w.values);
  return w;
}

// ES's benchmark's other-doc count.
constexpr int64_t kOtherDocCount = 100000;

struct ShapeGen {
  TreeShape shape;
  std::mt19937 rng{0x5eed5};
  std::string key(int i) {
    if (shape == TreeShape::kEs) return "test" + std::to_string(i);
    std::string k(std::uniform_int_distribution<size_t>(16, 40)(rng), '\0');
    for (char& c : k) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 25)(rng));
    return k;
  }
  // Zipf over the rank for leaves; an outer bucket counts its leaves' sum.
  int64_t leafCount(int i) const { return shape == TreeShape::kEs ? i : 1000000 / (i + 1); }
};

std::unique_ptr<agg::StringTerms> newTerms(ShapeGen& gen, int buckets, bool nested) {
  auto terms = std::make_unique<agg::StringTerms>("test", agg::Metadata::null());
  terms->setReduceOrder(agg::BucketOrder::key(true));
  terms->setOrder(agg::BucketOrder::key(true));
  terms->setRequiredSize(buckets);
  terms->setMinDocCount(1);
  terms->setDocCountError(std::nullopt);
  terms->setShardSize(buckets);
  terms->setShowTermDocCountError(false);
  terms->setOtherDocCount(kOtherDocCount);
  terms->buckets().reserve(static_cast<size_t>(buckets));
  int64_t leaves_sum = 0;
  for (int i = 0; i < buckets; ++i) leaves_sum += gen.leafCount(i);
  for (int i = 0; i < buckets; ++i) {
    agg::StringTerms::Bucket bucket;
    bucket.key = gen.key(i);
    bucket.doc_count = nested && gen.shape == TreeShape::kRealistic ? leaves_sum : gen.leafCount(i);
    if (nested) bucket.aggregations.add(newTerms(gen, buckets, false));
    terms->buckets().push_back(std::move(bucket));
  }
  return terms;
}

}  // namespace

const std::vector<Workload>& varintWorkloads() {
  static const std::vector<Workload>* all =
      new std::vector<Workload>{makeWorkload("OneByte", 1, 1), makeWorkload("Mixed", 1, 5),
                                makeWorkload("FiveByte", 5, 5), makeWorkload("Geometric", 0, 0)};
  return *all;
}

const char* shapeName(TreeShape shape) { return shape == TreeShape::kEs ? "Es" : "Realistic"; }

aggregations::InternalAggregations stringTermsTree(TreeShape shape, int n) {
  ShapeGen gen{shape};
  agg::InternalAggregations tree;
  tree.add(newTerms(gen, n, true));
  return tree;
}

}  // namespace wirestream::bench
