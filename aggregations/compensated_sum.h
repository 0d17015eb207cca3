// CompensatedSum: Kahan summation, as Elasticsearch's CompensatedSum, used by
// the sum/avg/stats reduces so that adding many shard partial sums loses no
// more precision than ES does (the reduced doubles match ES bit for bit).
//
// Example (runs: compensated_sum):
//   #include <cassert>
//   #include <vector>
//   std::vector<double> shard_sums = {1e16, 1.0, 1.0};
//   CompensatedSum s;
//   for (double v : shard_sums) s.add(v);
//   assert(s.value() == 1e16 + 2);  // plain += gives 1e16: each 1.0 is lost
//
// A value type; not thread-safe.
#pragma once

#include <cmath>

namespace wirestream::aggregations {

class CompensatedSum {
 public:
  explicit CompensatedSum(double value = 0, double delta = 0) : value_(value), delta_(delta) {}

  double value() const { return value_; }

  // Non-finite values switch to plain addition, so inf/NaN propagate as in ES.
  void add(double v) {
    if (!std::isfinite(v) || !std::isfinite(value_)) {
      value_ += v;
      return;
    }
    double corrected = v - delta_;
    double new_value = value_ + corrected;
    delta_ = (new_value - value_) - corrected;
    value_ = new_value;
  }

 private:
  double value_;
  double delta_;
};

}  // namespace wirestream::aggregations
