// FaultProxy: a TCP forwarder (listen address -> upstream address) that
// injects faults on the connections it carries, for the network-fault suite
// (tools/faults.sh, docs/transport.md "Network faults"). The kernels CI runs
// on have no netem qdisc, so what netem would do is done here, on real
// sockets, between real network namespaces; the transport under test is
// never mocked.
//
//   FaultProxy proxy("127.0.0.1", 0, "10.77.0.2", 9300);
//   uint16_t port = proxy.start();
//   proxy.command("delay 100 50");  // every chunk held 100 ms +- 50 ms, in order
//   proxy.command("blackhole");     // nothing read or forwarded; nothing closed
//   proxy.command("resume");        // forwarding again, what was held included
//   proxy.command("reset");         // every connection: RST (SO_LINGER 0), mid-chunk
//   proxy.command("dropsyn");       // listen backlog full: new SYNs are dropped
//   proxy.command("pass");          // no delay, no blackhole, accepting again
//
// Modes:
// - delay MEAN JITTER: each chunk read from either side is forwarded after
//   its own delay, uniform in [MEAN - JITTER, MEAN + JITTER] ms, but never
//   before the chunk read before it on the same direction (order is kept);
// - blackhole: the proxy stops reading and writing every connection (new ones
//   are accepted but not forwarded) without closing anything: a silent peer;
//   "resume" ends it;
// - reset: for each connection open now, the next chunk going to the client
//   is cut in half (the first half is written), then both sockets are closed
//   with SO_LINGER 0, so both peers see a RST in the middle of what was being
//   sent; a connection with nothing to send within 200 ms is reset as is;
// - dropsyn: the listening socket's backlog is set to 0 and filled by a
//   connection of the proxy's own that it does not accept, so the kernel
//   drops every further SYN (a connect to it hangs in SYN_SENT until its own
//   timeout); "pass" or "accept" accepts again.
// A connection whose upstream connect fails, or one side of which resets, has
// its other side reset too. Thread-safe: command() may be called from any
// thread; the forwarding runs on one thread of the proxy's own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace wirestream::faults {

struct ProxyCounters {
  uint64_t accepted = 0;         // client connections accepted
  uint64_t bytes_forwarded = 0;  // both directions
  uint64_t resets = 0;           // connections closed with RST
  uint64_t cut = 0;              // of those, reset after half a chunk toward the client
  uint64_t open = 0;             // connections open now
};

class FaultProxy {
 public:
  FaultProxy(std::string listen_host, uint16_t listen_port, std::string upstream_host,
             uint16_t upstream_port);
  ~FaultProxy();  // stop()
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Binds, listens and starts forwarding; returns the bound port. Throws
  // std::runtime_error when it cannot bind.
  uint16_t start();
  // Closes every socket and joins the forwarding thread.
  void stop();

  // One command line (see above), plus "stats"; returns "ok", the stats as
  // "accepted=N bytes=N resets=N cut=N open=N", or "error: ...".
  std::string command(const std::string& line);

  ProxyCounters counters() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirestream::faults
