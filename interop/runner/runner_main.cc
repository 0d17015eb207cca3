// `runner FILE`: the request loop of runner.h.
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "interop/runner/runner.h"

namespace wirestream::interop {
namespace {

Json answer(const Json& request) {
  const std::string kind = request.at("kind").get<std::string>();
  if (kind == "values") return runValues(request);
  if (kind == "aggs") return runAggs(request);
  if (kind == "reduce") return runReduce(request);
  throw std::invalid_argument("unknown kind [" + kind + "]");
}

}  // namespace

std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

std::string fromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd-length hex");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument(std::string("not a hex digit: ") + c);
  };
  std::string bytes(hex.size() / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]));
  }
  return bytes;
}

}  // namespace wirestream::interop

int main(int argc, char** argv) {
  using wirestream::interop::Json;
  if (argc != 2) {
    std::cerr << "usage: runner REQUESTS.jsonl\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "runner: cannot open " << argv[1] << "\n";
    return 2;
  }
  std::string line;
  while (std::getline(in, line)) {
    Json request = Json::parse(line);
    Json out;
    out["id"] = request.at("id");
    try {
      Json fields = wirestream::interop::answer(request);  // named: items() would dangle
      for (auto& [k, v] : fields.items()) out[k] = v;
    } catch (const std::exception& e) {
      out["error"] = std::string(typeid(e).name()) + ": " + e.what();
    }
    std::cout << out.dump() << '\n';
  }
  return 0;
}
