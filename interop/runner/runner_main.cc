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
