// Every aggregation type at the versions around each gate of wire format §6
// (7.9.0, 7.10.0, 7.14.0, 7.15.0, 7.17.0, 8.0.0, 8.7.0), both directions:
// writing gives the bytes Elasticsearch's own writeTo gives, and those bytes
// read back to the same result. Every expected string is derived by hand from
// ES's Java (InternalTerms, InternalMappedTerms, InternalHistogram, the
// Internal* metrics, AbstractHyperLogLogPlusPlus, StreamOutput's generic map
// writer), never from our encoder.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "agg_test_util.h"

namespace wirestream::aggregations {
namespace {

using testing::readAggs;
using testing::single;
using testing::writeAggs;

using testing::hex;

const TransportVersion kVersions[] = {TransportVersion::fromRelease(7, 9, 0),
                                      TransportVersion::V_7_10_0,
                                      TransportVersion::fromRelease(7, 14, 0),
                                      TransportVersion::V_7_15_0,
                                      TransportVersion::V_7_17_0,
                                      TransportVersion::V_8_0_0,
                                      TransportVersion::V_8_7_0};

struct Case {
  std::string what;
  // The aggregation as written, and as it reads back at version v (they differ
  // only where an older wire form cannot carry a field).
  std::function<std::unique_ptr<InternalAggregation>(TransportVersion v)> make;
  std::function<std::string(TransportVersion v)> expected;
};

void check(const Case& c) {
  for (TransportVersion v : kVersions) {
    SCOPED_TRACE(c.what + " at " + v.toString());
    InternalAggregations aggs = single(c.make(v));
    std::vector<uint8_t> es = hex(c.expected(v));
    EXPECT_EQ(BytesReference(std::span<const uint8_t>(writeAggs(aggs, v))).toHex(),
              BytesReference(std::span<const uint8_t>(es)).toHex());
    EXPECT_TRUE(readAggs(es, v) == aggs);
  }
}

std::string same(std::string s) { return s; }

// ---- terms: reduce order from 7.10.0 (InternalTerms), the docCountError
// presence boolean from 7.15.0 (InternalMappedTerms.writeTermTypeInfoTo) ----

TEST(EsGates, StringTermsWithDocCountError) {
  // ES 7.17.0's bytes for sterms "errs", docCountError 7 (the vector of the
  // compatibility report); 7.15.0 and 8.x write the same.
  check({"sterms",
         [](TransportVersion) {
           auto t = std::make_unique<StringTerms>("errs", GenericValue());
           t->setReduceOrder(BucketOrder::count(false));
           t->setOrder(BucketOrder::count(false));
           t->setRequiredSize(3);
           t->setMinDocCount(1);
           t->setDocCountError(7);
           t->setShardSize(6);
           t->setOtherDocCount(9);
           t->buckets().push_back({"k", 100, 0, {}});
           return t;
         },
         [](TransportVersion v) -> std::string {
           std::string head = "01 06 737465726d73 04 65727273 ff";
           std::string tail = "03 726177 06 00 09 01 64 00 01 6b";
           if (v.onOrAfter(TransportVersion::V_7_15_0)) return head + " 01 01 03 01 01 0e " + tail;
           if (v.onOrAfter(TransportVersion::V_7_10_0)) return head + " 01 01 03 01 0e " + tail;
           return head + " 01 03 01 0e " + tail;
         }});
}

TEST(EsGates, LongTerms) {
  check({"lterms",
         [](TransportVersion v) {
           auto t = std::make_unique<LongTerms>("a", GenericValue());
           // Before 7.10.0 the reduce order does not travel: it reads as the order.
           t->setReduceOrder(v.onOrAfter(TransportVersion::V_7_10_0) ? BucketOrder::key(true)
                                                                     : BucketOrder::count(false));
           t->setOrder(BucketOrder::count(false));
           t->setRequiredSize(10);
           t->setMinDocCount(1);
           t->setDocCountError(-1);
           t->setShardSize(std::numeric_limits<int32_t>::max());  // writeSize: 0
           t->setShowTermDocCountError(true);
           t->buckets().push_back({-1, 5, 2, {}});
           return t;
         },
         [](TransportVersion v) -> std::string {
           std::string head = "01 06 6c7465726d73 01 61 ff";
           std::string tail = "03726177 00 01 00 01 05 0000000000000002 00 ffffffffffffffff";
           if (v.onOrAfter(TransportVersion::V_7_15_0)) return head + " 04 01 0a 01 01 01 " + tail;
           if (v.onOrAfter(TransportVersion::V_7_10_0)) return head + " 04 01 0a 01 01 " + tail;
           return head + " 01 0a 01 01 " + tail;
         }});
}

TEST(EsGates, DoubleTerms) {
  check({"dterms",
         [](TransportVersion v) {
           auto t = std::make_unique<DoubleTerms>("a", GenericValue());
           t->setReduceOrder(v.onOrAfter(TransportVersion::V_7_10_0) ? BucketOrder::key(true)
                                                                     : BucketOrder::key(false));
           t->setOrder(BucketOrder::key(false));
           t->setRequiredSize(1);
           t->setMinDocCount(0);
           // A present 0: before 7.15.0 it travels as ZLong 0, which reads back
           // as "not computed" (aggregations.md).
           t->setDocCountError(v.onOrAfter(TransportVersion::V_7_15_0) ? std::optional<int64_t>(0)
                                                                       : std::nullopt);
           t->setShardSize(1);
           t->setOtherDocCount(3);
           t->buckets().push_back({2.5, 1, 0, {}});
           return t;
         },
         [](TransportVersion v) -> std::string {
           std::string head = "01 06 647465726d73 01 61 ff";
           std::string tail = "03726177 01 00 03 01 01 00 4004000000000000";
           if (v.onOrAfter(TransportVersion::V_7_15_0)) return head + " 04 03 01 00 01 00 " + tail;
           if (v.onOrAfter(TransportVersion::V_7_10_0)) return head + " 04 03 01 00 00 " + tail;
           return head + " 03 01 00 00 " + tail;
         }});
}

// ---- histogram: no gate; the empty-bucket bounds are four plain doubles
// (InternalHistogram.EmptyBucketInfo), no bound = +inf min / -inf max ----

TEST(EsGates, Histogram) {
  check({"histogram",
         [](TransportVersion) {
           auto h = std::make_unique<Histogram>("a", GenericValue());
           h->setMinDocCount(0);
           Histogram::EmptyBucketInfo e;  // no bounds: +inf / -inf
           e.interval = 10;
           h->setEmptyBucketInfo(std::move(e));
           h->buckets().push_back({10, 2, {}});
           return h;
         },
         [](TransportVersion) {
           return same(
               "01 09 686973746f6772616d 01 61 ff 04 00"
               " 4024000000000000 0000000000000000 7ff0000000000000 fff0000000000000 00"
               " 03726177 00 01 4024000000000000 02 00");
         }});
}

// ---- the metrics: no gate in 7.9..8.7 (InternalMax/Min/Sum/Avg/Stats:
// format first; InternalValueCount: no format) ----

TEST(EsGates, Max) {
  check({"max", [](TransportVersion) { return std::make_unique<Max>("a", GenericValue(), 1.5); },
         [](TransportVersion) { return same("01 03 6d6178 01 61 ff 03726177 3ff8000000000000"); }});
}

TEST(EsGates, Min) {
  check({"min", [](TransportVersion) { return std::make_unique<Min>("a", GenericValue(), -2.0); },
         [](TransportVersion) { return same("01 03 6d696e 01 61 ff 03726177 c000000000000000"); }});
}

TEST(EsGates, Sum) {
  check({"sum", [](TransportVersion) { return std::make_unique<Sum>("a", GenericValue(), 0.0); },
         [](TransportVersion) { return same("01 03 73756d 01 61 ff 03726177 0000000000000000"); }});
}

TEST(EsGates, Avg) {
  check({"avg", [](TransportVersion) { return std::make_unique<Avg>("a", GenericValue(), 3.0, 2); },
         [](TransportVersion) {
           return same("01 03 617667 01 61 ff 03726177 4008000000000000 02");
         }});
}

TEST(EsGates, ValueCount) {
  // The compatibility report's vector: n1 = 1 is ...026e31 ff 01, no format.
  check({"value_count",
         [](TransportVersion) { return std::make_unique<ValueCount>("n1", GenericValue(), 1); },
         [](TransportVersion) { return same("01 0b 76616c75655f636f756e74 02 6e31 ff 01"); }});
}

TEST(EsGates, Stats) {
  check({"stats",
         [](TransportVersion) {
           return std::make_unique<Stats>("a", GenericValue(), 2, 1.0, 2.0, 3.0);
         },
         [](TransportVersion) {
           return same(
               "01 05 7374617473 01 61 ff 03726177 02"
               " 3ff0000000000000 4000000000000000 4008000000000000");
         }});
}

TEST(EsGates, Cardinality) {
  // One value, 1: mix64(1) = dd2fccc0739bd967, encodeHash at p = 4 gives
  // 0x0374bf32; LINEAR_COUNTING is the boolean false.
  check({"cardinality",
         [](TransportVersion) {
           HyperLogLogPlusPlus s(4);
           s.collect(HyperLogLogPlusPlus::hashLong(1));
           return std::make_unique<Cardinality>("a", GenericValue(), std::move(s));
         },
         [](TransportVersion) {
           return same("01 0b 63617264696e616c697479 01 61 ff 03726177 01 04 00 01 0374bf32");
         }});
}

// ---- DocValueFormat.DateTime: the joda boolean for 7.7.0 <= v < 8.0.0 and
// formatSortValues from 7.13.0 (ES's DateTime.writeTo), here on a max over a
// date field, as ES's default date format writes it ----

TEST(EsGates, DateTimeFormat) {
  check(
      {"max over a date",
       [](TransportVersion) {
         auto m = std::make_unique<Max>("a", GenericValue(), 1420070400000.0);
         m->setFormat(DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
         return m;
       },
       [](TransportVersion v) -> std::string {
         std::string gates;
         if (v.before(TransportVersion::V_8_0_0)) gates += " 00";  // joda: false
         if (v.onOrAfter(TransportVersion::fromRelease(7, 13, 0))) gates += " 00";
         return "01 03 6d6178 01 61 ff 09 646174655f74696d65"
                " 27 7374726963745f646174655f6f7074696f6e616c5f74696d657c7c65706f63685f6d696c6c6973"
                " 01 5a 00" +
                gates + " 4274aa2cab000000";
       }});
}

TEST(EsGates, DecimalFormat) {
  check({"sum with a decimal format",
         [](TransportVersion) {
           auto m = std::make_unique<Sum>("a", GenericValue(), 1234567.891);
           m->setFormat(DocValueFormat::decimal("#,##0.00"));
           return m;
         },
         [](TransportVersion) {
           return same(
               "01 03 73756d 01 61 ff 07 646563696d616c 08 232c2323302e3030 4132d687e4189375");
         }});
}

TEST(EsGates, IpFormat) {
  check({"sterms over an ip field",
         [](TransportVersion) {
           auto t = std::make_unique<StringTerms>("a", GenericValue());
           t->setFormat(DocValueFormat::ip());
           t->setOrder(BucketOrder::count(false));
           t->setReduceOrder(BucketOrder::count(false));
           t->setDocCountError(5);
           t->buckets().push_back(
               {std::string("\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\xa8\x00\x01", 16), 1, 0, {}});
           return t;
         },
         [](TransportVersion v) -> std::string {
           std::string orders = v.onOrAfter(TransportVersion::V_7_10_0) ? "01 01" : "01";
           std::string error = v.onOrAfter(TransportVersion::V_7_15_0) ? "01 0a" : "0a";
           return "01 06 737465726d73 01 61 ff " + orders + " 0a 01 " + error +
                  " 02 6970 0a 00 00 01 01 00 10 00000000000000000000ffffc0a80001";
         }});
}

// ---- date_histogram: no gate (InternalDateHistogram; the rounding, the
// empty bucket's aggregations and the optional LongBounds in its
// EmptyBucketInfo; the DateTime format's own gates) ----

TEST(EsGates, DateHistogram) {
  check(
      {"date_histogram",
       [](TransportVersion) {
         auto h = std::make_unique<DateHistogram>("a", GenericValue());
         h->setMinDocCount(0);
         DateHistogram::EmptyBucketInfo e;
         e.rounding = DateHistogram::Rounding::timeUnit(DateHistogram::Unit::kDayOfMonth, "Z");
         e.bounds = DateHistogram::Bounds{1420070400000, std::nullopt, std::nullopt, std::nullopt};
         h->setEmptyBucketInfo(std::move(e));
         h->setFormat(DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
         h->buckets().push_back({1420156800000, 2, {}});
         return h;
       },
       [](TransportVersion v) -> std::string {
         std::string gates;
         if (v.before(TransportVersion::V_8_0_0)) gates += " 00";
         if (v.onOrAfter(TransportVersion::fromRelease(7, 13, 0))) gates += " 00";
         return "01 0e 646174655f686973746f6772616d 01 61 ff 04 00"
                " 01 05 01 5a"                      // TimeUnitRounding DAY_OF_MONTH, "Z"
                " 00"                               // no empty-bucket aggregations
                " 01 01 0000014aa2cab000 00 00 00"  // bounds: min only
                " 0000000000000000"                 // offset 0
                " 09 646174655f74696d65"
                " 27 7374726963745f646174655f6f7074696f6e616c5f74696d657c7c65706f63685f6d696c6c6973"
                " 01 5a 00" +
                gates + " 00 01 0000014aa7f10c00 02 00";
       }});
}

TEST(EsGates, RoundingForms) {
  // TimeIntervalRounding (id 2: VLong interval, zone) inside an OffsetRounding
  // (id 3: the rounding, then ZLong offset), as Rounding.writeTo writes them.
  auto h = std::make_unique<DateHistogram>("a", GenericValue());
  h->setMinDocCount(0);
  DateHistogram::EmptyBucketInfo e;
  e.rounding = DateHistogram::Rounding::timeInterval(3600000, "+01:00");
  e.rounding.offset = -1;
  h->setEmptyBucketInfo(std::move(e));
  h->setOffset(5);
  InternalAggregations aggs = single(std::move(h));
  const std::string es =
      "01 0e 646174655f686973746f6772616d 01 61 ff 04 00"
      " 03 02 80dddb01 06 2b30313a3030 01"  // offset(interval 3600000 in +01:00), ZLong -1
      " 00 00 0000000000000005 03726177 00 00";
  EXPECT_EQ(
      BytesReference(std::span<const uint8_t>(writeAggs(aggs, TransportVersion::V_8_7_0))).toHex(),
      BytesReference(std::span<const uint8_t>(hex(es))).toHex());
  EXPECT_TRUE(readAggs(hex(es), TransportVersion::V_8_7_0) == aggs);
  // An offset rounding inside an offset rounding: ES never writes one.
  std::string nested = es;
  nested.replace(nested.find(" 03 02"), 6, " 03 03 02");
  nested.replace(nested.find(" 01 00 00 00"), 3, " 01 01");
  EXPECT_THROW(readAggs(hex(nested), TransportVersion::V_8_7_0), CorruptStreamError);
}

// ---- metadata: a generic map; its keys are writeString before 8.7.0 and
// generic values from 8.7.0 (StreamOutput's Map writer) ----

TEST(EsGates, MetadataKeys) {
  check({"metadata",
         [](TransportVersion) {
           return std::make_unique<Max>("a", GenericValue::ofMap({{"k", "v"}}), 1.5);
         },
         [](TransportVersion v) -> std::string {
           std::string key = v.onOrAfter(TransportVersion::V_8_7_0) ? "00 01 6b" : "01 6b";
           return "01 03 6d6178 01 61 0a 01 " + key + " 00 01 76 03726177 3ff8000000000000";
         }});
}

}  // namespace
}  // namespace wirestream::aggregations
