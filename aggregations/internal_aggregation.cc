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
}  // namespace

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
  metadata_ = readMetadata(in);
}

void InternalAggregation::writeTo(StreamOutput& out) const {
  writeNameAndMetadata(out);
  doWriteTo(out);
}

void InternalAggregation::writeNameAndMetadata(StreamOutput& out) const {
  out.writeString(name_);
  writeGenericValue(out, metadata_);
}

double InternalAggregation::sortValue(std::string_view) const {
  return std::numeric_limits<double>::quiet_NaN();
}

bool operator==(const InternalAggregation& a, const InternalAggregation& b) {
  return typeid(a) == typeid(b) && a.name_ == b.name_ && a.metadata_ == b.metadata_ &&
         a.doEquals(b);
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
  // Groups in first-seen order, found by name through a hash map: a list from
  // the wire may hold many aggregations, and a linear search would make the
  // reduce quadratic in them.
  std::vector<std::vector<const InternalAggregation*>> groups;
  std::unordered_map<std::string_view, size_t> group_of;
  for (const InternalAggregations* list : lists) {
    for (const Ptr& a : list->aggs_) {
      auto [slot, inserted] = group_of.try_emplace(a->getName(), groups.size());
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
  std::vector<Ptr> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.push_back(g.front()->reduce(g, context));
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
