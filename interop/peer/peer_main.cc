// `peer`: the wirestream side of the transport check (TransportCheck.java), over wirestream's
// public transport API against a real Elasticsearch TransportService on loopback.
//
//   peer client PORT ES_WIRE_ID REFUSED_ID [OFFER]
//       connects to the ES node at 127.0.0.1:PORT and runs the wirestream -> ES cases, one
//       line each: "pass <case>" or "fail <case>: <why>"; exits 0.
//   peer server [OFFER [BUILD_HASH]]
//       listens on 127.0.0.1 (node id "ws-peer"), prints "port N", serves the actions below
//       until standard input closes.
// OFFER: the release (or id) the peer offers, TransportOptions::forRelease, or "default"
// (a default TransportOptions, as a node that sets nothing offers); without it the
// peer offers 8.7.0 with ES 8's minimum, 7.17.0 (forRelease("8.7.0"), what the harness
// uses for the 7.17 and 8.7 lines, which the default, 9.5.3, does not talk to). With it, the
// refused version is offered as its release would (forRelease). BUILD_HASH: the build hash
// the server's transport handshake names (ES 8.19 refuses a peer of its own release with
// another hash).
//
// The bodies are those of TransportCheck's ES request and response classes: one string each
// (the parent TaskId ES's TransportRequest writes first is wirestream's frame's: frame.h).
//   ES actions:        interop/echo  -> "<text>|<X-Interop header or ->"
//                      interop/big   -> a string of <text> ASCII chars
//                      interop/fail  -> throws: "iae" IllegalArgumentException,
//                                       "cbe" CircuitBreakingException(100 wanted, 50 limit)
//                                       "registry" one of the newest registry ids of the
//                                       release's line, message "name=<ES's name for it>"
//   wirestream actions: interop/ws-echo -> "ws:<text>|<X-Interop header or ->"
//                       interop/ws-fail -> throws std::invalid_argument("ws refused [<text>]")
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/transport_version.h"
#include "stream/writeable.h"
#include "transport/handshake.h"
#include "transport/transport_errors.h"
#include "transport/transport_service.h"

namespace wirestream::interop {
namespace {

using namespace std::chrono_literals;
using transport::TransportOptions;
using transport::TransportService;

struct TextRequest : Writeable {
  std::string text;
  explicit TextRequest(std::string t) : text(std::move(t)) {}
  void writeTo(StreamOutput& out) const override { out.writeString(text); }
};

struct TextResponse : Writeable {
  std::string text;
  explicit TextResponse(std::string t) : text(std::move(t)) {}
  void writeTo(StreamOutput& out) const override { out.writeString(text); }
};

std::string readText(StreamInput& in) { return in.readString(); }

std::string describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const transport::TransportError& t) {
    return t.type() + ": " + t.what();
  } catch (const std::exception& x) {
    return std::string(typeid(x).name()) + ": " + x.what();
  }
}

// The options of a node offering `offer` (forRelease), or without one 8.7.0's: an older
// peer on purpose (ES 7.17 and 8.7 refuse the default, 9.5.3).
TransportOptions offering(const std::string& offer) {
  if (offer == "default") return TransportOptions{};  // the library's own: its newest release
  return TransportOptions::forRelease(offer.empty() ? "8.7.0" : offer);
}

struct Client {
  uint16_t port;
  int32_t es_id;
  int32_t refused_id;
  std::string offer;
  int failures = 0;

  void report(const std::string& name, const std::string& why) {
    if (why.empty()) {
      std::cout << "pass " << name << "\n" << std::flush;
    } else {
      ++failures;
      std::cout << "fail " << name << ": " << why << "\n" << std::flush;
    }
  }

  // Runs one case; an exception it lets out is its failure.
  template <class F>
  void run(const std::string& name, F&& f) {
    try {
      report(name, f());
    } catch (...) {
      report(name, describe(std::current_exception()));
    }
  }

  std::string echo(TransportService& service, const std::shared_ptr<transport::Connection>& conn,
                   const std::string& text, const transport::RequestHeaders& headers = {}) {
    TransportService::CallContext ctx;
    ctx.request_headers = headers;
    return service.submitRequest(conn, "interop/echo", TextRequest(text), readText, 10s, ctx).get();
  }

  TransportOptions options() const {
    TransportOptions o = offering(offer);
    o.node_name = "ws-client";
    o.connect_timeout = 10s;
    return o;
  }

  void runAll() {
    TransportService service(options());
    std::shared_ptr<transport::Connection> conn;
    run("handshake", [&]() -> std::string {
      conn = service.connect("127.0.0.1", port);
      // Both sides settle on the lower of the two versions, as ES's handshake does.
      int32_t want = std::min(es_id, options().version.id());
      if (conn->version().id() != want) {
        return "settled on " + std::to_string(conn->version().id()) + ", ES would on " +
               std::to_string(want);
      }
      return "";
    });
    if (!conn) return;
    run("request with thread-context headers", [&]() -> std::string {
      const std::string text = "h\xC3\xA9llo \xF0\x9D\x84\x9E";  // "héllo 𝄞"
      std::string got = echo(service, conn, text, {{"X-Interop", "v1"}});
      return got == text + "|v1" ? "" : "ES answered [" + got + "]";
    });
    for (auto [name, scheme] : {std::pair{"deflate", transport::CompressionScheme::kDeflate},
                                std::pair{"lz4", transport::CompressionScheme::kLz4}}) {
      run(std::string("compressed request (") + name + ")", [&, scheme = scheme]() {
        TransportOptions o = options();
        o.compress = true;
        o.compression_scheme = scheme;
        TransportService compressing(o);
        auto c = compressing.connect("127.0.0.1", port);
        std::string text(100000, 'z');  // compresses: the frame is far smaller than the text
        std::string got = echo(compressing, c, text);
        if (got != text + "|-") return std::string("ES answered other text");
        if (c->bytesSent() > 60000) {
          return "sent " + std::to_string(c->bytesSent()) + " bytes: not compressed";
        }
        return std::string();
      });
    }
    run("response over 16 MiB", [&]() -> std::string {
      const size_t n = 17 * 1024 * 1024 + 3;
      std::string got =
          service.submitRequest(conn, "interop/big", TextRequest(std::to_string(n)), readText, 30s)
              .get();
      return got.size() == n && got.find_first_not_of('x') == std::string::npos
                 ? ""
                 : "got " + std::to_string(got.size()) + " chars";
    });
    run("IllegalArgumentException as RemoteTransportError", [&]() -> std::string {
      try {
        service.submitRequest(conn, "interop/fail", TextRequest("iae"), readText, 10s).get();
        return "no error";
      } catch (const transport::RemoteIllegalArgumentError& e) {
        return std::string(e.what()) == "bad [iae]" ? "" : std::string("message: ") + e.what();
      }
    });
    run("CircuitBreakingException typed", [&]() -> std::string {
      try {
        service.submitRequest(conn, "interop/fail", TextRequest("cbe"), readText, 10s).get();
        return "no error";
      } catch (const transport::CircuitBreakingError& e) {
        const auto& c = e.cause();
        if (c.bytes_wanted != 100 || c.bytes_limit != 50) {
          return "wanted " + std::to_string(c.bytes_wanted) + " limit " +
                 std::to_string(c.bytes_limit);
        }
        return "";
      }
    });
    run("newest registry id of the line typed by ES's name", [&]() -> std::string {
      try {
        service.submitRequest(conn, "interop/fail", TextRequest("registry"), readText, 10s).get();
        return "no error";
      } catch (const transport::RemoteTransportError& e) {
        const std::string what = e.what();
        const size_t at = what.find("name=");
        if (at == std::string::npos) return "message without the name: " + what;
        const std::string want = what.substr(at + 5);
        return e.type() == want ? "" : "type [" + e.type() + "], ES's name [" + want + "]";
      }
    });
    run("keep-alive pings on an idle connection", [&]() -> std::string {
      uint64_t before = conn->pingsReceived();
      for (int i = 0; i < 3; ++i) {
        conn->sendPing();
        std::this_thread::sleep_for(400ms);
      }
      if (conn->pingsReceived() < before + 3) {
        return "ES answered " + std::to_string(conn->pingsReceived() - before) + " of 3 pings";
      }
      return echo(service, conn, "after pings") == "after pings|-" ? "" : "no answer after";
    });
    run("a version ES refuses", [&]() -> std::string {
      TransportOptions o = options();
      o.version = TransportVersion(refused_id);
      o.minimum_compatible_version =
          offer.empty() ? TransportVersion(refused_id) : transport::minimumCompatibleFor(o.version);
      TransportService old(o);
      try {
        old.connect("127.0.0.1", port);
        return "ES accepted version " + std::to_string(refused_id);
      } catch (const transport::TransportError& e) {
        std::cout << "  refused: " << e.type() << ": " << e.what() << "\n";
        // ES 8.18 and later refuse by closing the connection unanswered (their
        // InboundHandler logs ensureCompatibleVersion's message and closes).
        if (!offer.empty() &&
            std::string(e.what()).find("the peer closed the connection") == std::string::npos) {
          return std::string("refused other than by a close: ") + e.what();
        }
        return "";
      }
    });
  }
};

int serve(const std::string& offer, const std::string& build_hash) {
  TransportOptions o = offering(offer);
  if (!build_hash.empty()) o.build_hash = build_hash;
  o.node_name = "ws-peer";
  o.node_id = "ws-peer";
  TransportService service(o);
  service.registerRawHandler("interop/ws-echo", [](StreamInput& in) {
    auto text = std::make_shared<std::string>(readText(in));
    return [text](const std::shared_ptr<transport::TransportChannel>& ch) {
      const auto& h = ch->requestHeaders();
      auto it = h.find("X-Interop");
      ch->sendResponse(TextResponse("ws:" + *text + "|" + (it == h.end() ? "-" : it->second)));
    };
  });
  service.registerRequestHandler("interop/ws-fail", readText,
                                 [](const std::string& text) -> TextResponse {
                                   throw std::invalid_argument("ws refused [" + text + "]");
                                 });
  uint16_t port = service.listen("127.0.0.1", 0);
  std::cout << "port " << port << "\n" << std::flush;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}

}  // namespace
}  // namespace wirestream::interop

int main(int argc, char** argv) {
  using namespace wirestream::interop;
  std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "server" && argc >= 2 && argc <= 4) {
      return serve(argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "");
    }
    if (mode == "client" && (argc == 5 || argc == 6)) {
      Client c{static_cast<uint16_t>(std::stoi(argv[2])), std::stoi(argv[3]), std::stoi(argv[4]),
               argc == 6 ? argv[5] : ""};
      c.runAll();
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "peer: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: peer client PORT ES_WIRE_ID REFUSED_ID [OFFER] | peer server [OFFER "
               "[BUILD_HASH]]\n";
  return 2;
}
