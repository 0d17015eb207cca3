# The Cap'n Proto peer of the StringTerms tree (string_terms_bench.cc): the
# fields of wire-format section 7, as string_terms.proto has them.
@0xc7a2b9d3e4f51a01;

$import "/capnp/c++.capnp".namespace("wirestream::bench::cp");

struct Bucket {
  docCount @0 :UInt64;
  docCountError @1 :Int64;  # only set when showTermDocCountError
  aggregations @2 :List(StringTerms);
  key @3 :Data;
}

struct StringTerms {
  name @0 :Text;
  reduceOrder @1 :UInt32;  # BucketOrder ids as in wire-format section 7
  order @2 :UInt32;
  requiredSize @3 :UInt32;
  minDocCount @4 :UInt64;
  hasDocCountError @5 :Bool;
  docCountError @6 :Int64;
  format @7 :Text;
  shardSize @8 :UInt32;
  showTermDocCountError @9 :Bool;
  otherDocCount @10 :UInt64;
  buckets @11 :List(Bucket);
}

struct InternalAggregations {
  aggregations @0 :List(StringTerms);
}
