// InternalAggregation(s) on the wire (wire format §7):
//   aggregations := VInt count, count x (string type, aggregation)
//   aggregation  := string name, generic metadata (map | FF), body of the type
#include "aggregations/internal_aggregation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "stream/errors.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/java_hash.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::aggregations {

namespace {
// Counts the bytes written and keeps none of them.
class CountingOutput final : public StreamOutput {
 public:
  CountingOutput() {
    pos_ = buf_;
    end_ = buf_ + sizeof buf_;
  }
  size_t size() const { return flushed_ + static_cast<size_t>(pos_ - buf_); }

 protected:
  void nextBuffer() override {  // called when the buffer is full
    flushed_ += sizeof buf_;
    pos_ = buf_;
    end_ = buf_ + sizeof buf_;
  }

 private:
  uint8_t buf_[256];
  size_t flushed_ = 0;
};
// The order in which ES's reduce returns the groups: it collects them in a java.util.HashMap
// keyed by name, filled by computeIfAbsent for every aggregation of every list, and walks its
// entry set: by bin (the spread hash masked by the table's capacity), then, within a bin,
// newest first (computeIfAbsent puts a new key at the head of its bin, where put appends it;
// a resize keeps the order of a bin's nodes). ES 8.16 and later (AggregatorsReducer) create
// the map with the first list's size as its initial capacity (`first_size`); before, ES's
// InternalAggregations.reduce used `new HashMap<>()`, whose first table has 16 bins (pass 16).
// computeIfAbsent resizes before it looks (when the size is past the threshold, or on the
// first call), and turns a bin of 8 into a tree (a resize below 64) after inserting; a tree's
// walk is not modelled (it needs 8 names of one masked hash in 64 bins or more).
std::vector<size_t> javaSizedHashMapOrder(const std::vector<std::string_view>& names,
                                          const std::vector<size_t>& calls, size_t first_size) {
  std::vector<uint32_t> spread(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto h = static_cast<uint32_t>(javaStringHash(names[i]));
    spread[i] = h ^ (h >> 16);
  }
  // HashMap.tableSizeFor: the power of two at or above the capacity, at least 1.
  uint64_t threshold = 1;
  while (threshold < first_size) threshold *= 2;
  uint64_t capacity = 0;
  size_t size = 0;
  std::vector<bool> present(names.size(), false);
  std::unordered_map<uint64_t, size_t> bin_size;
  std::vector<size_t> inserted;
  auto resize = [&] {
    capacity = capacity == 0 ? threshold : capacity * 2;
    threshold = capacity * 3 / 4;  // (int) (capacity * 0.75f)
    bin_size.clear();
    for (size_t j : inserted) ++bin_size[spread[j] & (capacity - 1)];
  };
  for (size_t g : calls) {
    if (capacity == 0 || size > threshold) resize();
    if (present[g]) continue;
    present[g] = true;
    size_t before = bin_size[spread[g] & (capacity - 1)]++;
    inserted.push_back(g);
    ++size;
    if (before >= 7 && capacity < 64) resize();
  }
  std::vector<size_t> order(inserted.rbegin(), inserted.rend());  // newest first in a bin
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return (spread[a] & (capacity - 1)) < (spread[b] & (capacity - 1));
  });
  return order;
}

}  // namespace

std::vector<size_t> esReduceOrder(const ReduceContext& context,
                                  const std::vector<std::string_view>& names,
                                  const std::vector<size_t>& calls, size_t first_size) {
  if (context.version.onOrAfter(TransportVersion::V_8_16_0)) {
    return javaSizedHashMapOrder(names, calls, first_size);
  }
  return javaSizedHashMapOrder(names, calls, 16);  // new HashMap<>(): 16 bins at first
}

int64_t checkedAdd(int64_t a, int64_t b, std::string_view what) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    internal::throwLimitExceeded(std::string(what) + " overflows a long: " + std::to_string(a) +
                                 " + " + std::to_string(b));
  }
  return sum;
}

void throwNegativeCount(std::string_view what, int64_t v) {
  internal::throwCorrupt("negative " + std::string(what) + " [" + std::to_string(v) + "]");
}

void ReduceContext::consumeBucketsAndMaybeBreak(int64_t n) const {
  if (!final_reduce) return;
  // Saturates: a caller may charge a product of two large counts at once.
  if (__builtin_add_overflow(bucket_count_, n, &bucket_count_)) {
    bucket_count_ = n > 0 ? std::numeric_limits<int64_t>::max() : 0;
  }
  if (bucket_count_ > max_buckets) throw TooManyBucketsError(max_buckets, bucket_count_);
}

InternalAggregation::InternalAggregation(StreamInput& in) {
  name_ = in.readString();
  metadata_ = share(readMetadata(in));
}

const Metadata& InternalAggregation::noMetadata() {
  static const Metadata kNone;
  return kNone;
}

std::shared_ptr<const Metadata> InternalAggregation::share(Metadata m) {
  if (m.isNull()) return nullptr;
  return std::make_shared<const Metadata>(std::move(m));
}

void InternalAggregation::writeTo(StreamOutput& out) const {
  writeNameAndMetadata(out);
  doWriteTo(out);
}

void InternalAggregation::writeNameAndMetadata(StreamOutput& out) const {
  out.writeString(name_);
  writeGenericValue(out, getMetadata());
}

double InternalAggregation::sortValue(std::string_view) const {
  return std::numeric_limits<double>::quiet_NaN();
}

bool operator==(const InternalAggregation& a, const InternalAggregation& b) {
  return typeid(a) == typeid(b) && a.name_ == b.name_ &&
         (a.metadata_ == b.metadata_ || a.getMetadata() == b.getMetadata()) && a.doEquals(b);
}

InternalAggregations::InternalAggregations(std::vector<Ptr> aggs) : aggs_(std::move(aggs)) {}

InternalAggregations::InternalAggregations(const InternalAggregations& other) {
  aggs_.reserve(other.aggs_.size());
  for (const Ptr& a : other.aggs_) aggs_.push_back(a->clone());
}

InternalAggregations& InternalAggregations::operator=(const InternalAggregations& other) {
  if (this != &other) *this = InternalAggregations(other);
  return *this;
}

void UniqueNameCheck::throwRepeated(std::string_view name) const {
  internal::throwCorrupt("duplicate aggregation name [" + std::string(name) + "] in a list of " +
                         std::to_string(n_));
}

const InternalAggregations& InternalAggregations::emptyList() {
  static const InternalAggregations* empty = new InternalAggregations();
  return *empty;
}

const InternalAggregation* InternalAggregations::get(std::string_view name) const {
  for (const Ptr& a : aggs_) {
    if (a->getName() == name) return a.get();
  }
  return nullptr;
}

void InternalAggregations::writeEach(StreamOutput& out) const {
  for (const Ptr& a : aggs_) {
    out.writeString(a->getWriteableName());
    a->writeTo(out);
  }
}

InternalAggregations InternalAggregations::readList(StreamInput& in,
                                                    const NamedWriteableRegistry& registry) {
  // Each aggregation takes at least a type, a name and a metadata byte.
  int32_t n = in.readArraySize(3);
  std::vector<Ptr> aggs;
  if (n == 0) return InternalAggregations();
  aggs.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(Ptr)));
  UniqueNameCheck names(n);
  for (int32_t i = 0; i < n; ++i) {
    Ptr agg = readNamedWriteable<InternalAggregation>(in, registry);
    names.add(agg->getName());
    aggs.push_back(std::move(agg));
  }
  return InternalAggregations(std::move(aggs));
}

InternalAggregations InternalAggregations::reduce(
    std::span<const InternalAggregations* const> lists, const ReduceContext& context) {
  // ES's InternalAggregations.reduce of a list of one keeps its order (from 8.16; before,
  // it went through the map as the others).
  if (lists.size() == 1 && context.version.onOrAfter(TransportVersion::V_8_16_0)) {
    return reduceSingle(*lists.front(), context);
  }
  return reduceBucket(lists, context);
}

InternalAggregations InternalAggregations::reduceBucket(
    std::span<const InternalAggregations* const> lists, const ReduceContext& context) {
  // Groups in first-seen order, found by name through a hash map: a list from
  // the wire may hold many aggregations, and a linear search would make the
  // reduce quadratic in them.
  std::vector<std::vector<const InternalAggregation*>> groups;
  std::unordered_map<std::string_view, size_t> group_of;
  std::vector<size_t> calls;
  for (const InternalAggregations* list : lists) {
    for (const Ptr& a : list->aggs_) {
      auto [slot, inserted] = group_of.try_emplace(a->getName(), groups.size());
      calls.push_back(slot->second);
      if (inserted) {
        groups.push_back({a.get()});
        continue;
      }
      std::vector<const InternalAggregation*>& group = groups[slot->second];
      const InternalAggregation& first = *group.front();
      const InternalAggregation& next = *a;
      // Shard results come off the wire: two that cannot be reduced together
      // are bad input from some shard, so a StreamError like every other.
      if (typeid(first) != typeid(next)) {
        internal::throwCorrupt("aggregation [" + a->getName() + "] is [" +
                               std::string(first.getWriteableName()) + "] in one result and [" +
                               std::string(next.getWriteableName()) + "] in another");
      }
      group.push_back(a.get());
    }
  }
  // The result in ES's order (esReduceOrder): the same bytes as ES's reduce.
  std::vector<std::string_view> names;
  names.reserve(groups.size());
  for (const auto& g : groups) names.push_back(g.front()->getName());
  std::vector<Ptr> out;
  out.reserve(groups.size());
  size_t first_size = lists.empty() ? 0 : lists.front()->aggs_.size();
  for (size_t i : esReduceOrder(context, names, calls, first_size)) {
    const auto& g = groups[i];
    // Before 8.16, as ES: a metric that only one list holds is kept as it is. From 8.16
    // (V_8_16_0, ES's AggregatorsReducer, the same in 8.18.8, 8.19.21 and 9.5.3) every
    // aggregation of two or more lists goes through its reducer, so a sparse cardinality
    // sketch of one shard's bucket is rebuilt in the reducing sketch's slot order.
    const bool keep = g.size() == 1 && !g.front()->mustReduceOnSingleInternalAgg() &&
                      !context.version.onOrAfter(TransportVersion::V_8_16_0);
    out.push_back(keep ? g.front()->clone() : g.front()->reduce(g, context));
  }
  return InternalAggregations(std::move(out));
}

InternalAggregations InternalAggregations::reduceSingle(const InternalAggregations& list,
                                                        const ReduceContext& context) {
  if (!context.version.onOrAfter(TransportVersion::V_8_16_0)) {
    const InternalAggregations* one[] = {&list};
    return reduce(one, context);
  }
  std::vector<Ptr> out;
  out.reserve(list.aggs_.size());
  for (const Ptr& a : list.aggs_) {
    const InternalAggregation* group[] = {a.get()};
    out.push_back(a->mustReduceOnSingleInternalAgg() ? a->reduce(group, context) : a->clone());
  }
  return InternalAggregations(std::move(out));
}

double InternalAggregations::sortValue(std::string_view path) const {
  std::string_view name = path, metric;
  size_t cut = path.find_first_of(".[");
  if (cut != std::string_view::npos) {
    name = path.substr(0, cut);
    metric = path.substr(cut + 1);
    if (path[cut] == '[' && !metric.empty() && metric.back() == ']') metric.remove_suffix(1);
  }
  const InternalAggregation* a = get(name);
  return a ? a->sortValue(metric) : std::numeric_limits<double>::quiet_NaN();
}

size_t InternalAggregation::encodedSize() const {
  CountingOutput out;
  writeTo(out);
  return out.size();
}

size_t InternalAggregation::encodedSize(TransportVersion version) const {
  CountingOutput out;
  out.setTransportVersion(version);
  writeTo(out);
  return out.size();
}

size_t InternalAggregations::encodedSize() const {
  CountingOutput out;
  writeTo(out);
  return out.size();
}

int64_t InternalAggregations::bucketCount() const {
  int64_t n = 0;
  for (const Ptr& a : aggs_) n += a->bucketCount();
  return n;
}

bool operator==(const InternalAggregations& a, const InternalAggregations& b) {
  if (a.aggs_.size() != b.aggs_.size()) return false;
  for (size_t i = 0; i < a.aggs_.size(); ++i) {
    if (!(*a.aggs_[i] == *b.aggs_[i])) return false;
  }
  return true;
}

}  // namespace wirestream::aggregations
