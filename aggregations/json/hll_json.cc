// HyperLogLogPlusPlus's wire JSON (model_json.h): the wire's fields, the
// registers as hex.
#include <string>
#include <vector>

#include "aggregations/json/json_util.h"
#include "aggregations/json/model_json.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace ju = json_util;
using json = nlohmann::ordered_json;

json hllToJson(const HyperLogLogPlusPlus& sketch) {
  json j = json::object();
  j["precision"] = sketch.precision();
  j["dense"] = sketch.isDense();
  if (sketch.isDense()) {
    const std::vector<uint8_t>& r = sketch.registers();
    j["registers"] = ju::toHex({reinterpret_cast<const char*>(r.data()), r.size()});
  } else {
    j["hashes"] = sketch.sparseHashes();
  }
  return j;
}

HyperLogLogPlusPlus hllFromJson(const json& j) {
  int64_t p = ju::getLong(j, "precision");
  if (ju::getBool(j, "dense")) {
    std::string regs = ju::fromHex(ju::getString(j, "registers"));
    return HyperLogLogPlusPlus::fromDense(p, std::vector<uint8_t>(regs.begin(), regs.end()));
  }
  const json& hashes = ju::field(j, "hashes");
  if (!hashes.is_array()) internal::throwCorrupt("HyperLogLog++ hashes must be an array");
  // No more than the largest sparse sketch before allocating; fromSparse
  // checks the bound of this precision.
  constexpr size_t kMaxSparse = (size_t{1} << HyperLogLogPlusPlus::kMaxPrecision) * 3 / 16;
  if (hashes.size() > kMaxSparse) {
    internal::throwCorrupt("HyperLogLog++ sparse size [" + std::to_string(hashes.size()) +
                           "] above " + std::to_string(kMaxSparse));
  }
  std::vector<uint32_t> encoded;
  encoded.reserve(hashes.size());
  for (const json& h : hashes) {
    if (!h.is_number_unsigned() || h.get<uint64_t>() > UINT32_MAX) {
      internal::throwCorrupt("bad HyperLogLog++ hash " + h.dump());
    }
    encoded.push_back(h.get<uint32_t>());
  }
  return HyperLogLogPlusPlus::fromSparse(p, encoded);
}

}  // namespace wirestream::aggregations
