// Helpers for the transport tests: byte-payload messages, test nodes' options
// and echo handler, a log capture, and raw loopback sockets that speak (or
// break) the protocol by hand (frame_bytes.h builds their frames).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "tests/transport/frame_bytes.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/transport_service.h"

namespace wirestream::transport::testing {

// This process's resident memory, from /proc/self/statm (0 if unreadable).
inline size_t residentBytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<size_t>(resident) * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// A message that is a byte array (VInt length + bytes).
struct Blob final : Writeable {
  std::vector<uint8_t> bytes;
  Blob() = default;
  explicit Blob(std::vector<uint8_t> b) : bytes(std::move(b)) {}
  explicit Blob(StreamInput& in) : bytes(in.readByteArray()) {}
  void writeTo(StreamOutput& out) const override { out.writeByteArray(bytes); }
};

inline Blob readBlob(StreamInput& in) { return Blob(in); }

// Options for a test node: its name, where its log lines go, its I/O threads.
inline TransportOptions nodeOptions(std::string name,
                                    std::function<void(LogLevel, const std::string&)> logger,
                                    int io_threads = 1) {
  TransportOptions o;
  o.node_name = std::move(name);
  o.logger = std::move(logger);
  o.io_threads = io_threads;
  return o;
}

// `base` offering an ES release instead of the default (TransportVersion::current(),
// 9.5.3): its version and minimum compatible version (TransportOptions::forRelease), for a
// test that talks to older peers on purpose ("8.7.1": 7.17 and 8.x peers).
inline TransportOptions offering(const std::string& release, TransportOptions base) {
  const TransportOptions o = TransportOptions::forRelease(release);
  base.version = o.version;
  base.minimum_compatible_version = o.minimum_compatible_version;
  return base;
}

// The handler most tests call: "echo" answers with the Blob it was sent.
inline void registerEcho(TransportService& node) {
  node.registerRequestHandler("echo", readBlob, [](const Blob& b) { return b; });
}

// n bytes of a pattern that differs with `seed`.
inline std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 31);
  return v;
}

class LogCapture {
 public:
  std::function<void(LogLevel, const std::string&)> logger() {
    return [this](LogLevel level, const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back((level == LogLevel::kWarn   ? "WARN "
                        : level == LogLevel::kInfo ? "INFO "
                                                   : "DEBUG ") +
                       line);
      cv_.notify_all();
    };
  }
  // The first line containing every part, waiting up to `timeout`; "" if none.
  std::string waitFor(const std::vector<std::string>& parts,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    std::string found;
    cv_.wait_for(lock, timeout, [&] {
      for (const auto& l : lines_) {
        bool all = true;
        for (const auto& p : parts) all = all && l.find(p) != std::string::npos;
        if (all) {
          found = l;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  // Every line, for a failure message.
  std::string text() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const auto& l : lines_) all += l + "\n";
    return all;
  }
  size_t count(const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& l : lines_) n += l.find(part) != std::string::npos;
    return n;
  }
  // How many events of one TransportStats kind (`kind`: "protocol_errors")
  // the WARN and INFO lines account for: each line containing `part` counts
  // one plus the "(N similar lines suppressed)" it carries, each summary
  // "N similar lines suppressed (<kind>)" counts N. Every event is counted
  // once the last summary is out.
  uint64_t accountedFor(const std::string& kind, const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string summary = " suppressed (" + kind + "), the last: ";
    uint64_t n = 0;
    for (const auto& l : lines_) {
      if (l.rfind("DEBUG ", 0) == 0) continue;
      const size_t at = l.find(summary);
      if (at != std::string::npos) {
        n += std::stoull(l.substr(l.find(' ') + 1));
      } else if (l.find(part) != std::string::npos) {
        ++n;
        const size_t open = l.rfind(" (");
        if (open != std::string::npos && l.ends_with(" suppressed)")) {
          n += std::stoull(l.substr(open + 2));
        }
      }
    }
    return n;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// A blocking loopback socket with poll() timeouts.
class RawSocket {
 public:
  explicit RawSocket(int fd) : fd_(fd) {}
  static RawSocket connectTo(uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      throw std::runtime_error("connect failed");
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return RawSocket(fd);
  }
  RawSocket(RawSocket&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RawSocket(const RawSocket&) = delete;
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }

  void write(const std::vector<uint8_t>& bytes) { write(bytes.data(), bytes.size()); }
  void write(const uint8_t* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL);
      if (w <= 0) throw std::runtime_error("send failed");
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  // Reads what arrives within `timeout`; returns false on EOF or reset.
  bool readSome(std::vector<uint8_t>& into, std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return true;
    uint8_t buf[65536];
    ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r <= 0) return false;
    into.insert(into.end(), buf, buf + r);
    return true;
  }
  // True if the peer closed the connection within `timeout`.
  bool waitClosed(std::chrono::milliseconds timeout) {
    auto end = std::chrono::steady_clock::now() + timeout;
    std::vector<uint8_t> ignored;
    while (std::chrono::steady_clock::now() < end) {
      if (!readSome(ignored, std::chrono::milliseconds(50))) return true;
    }
    return false;
  }
  // Reads until one whole frame arrived (test failure after `timeout`).
  DecodedFrame readFrame(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (frames_.empty()) {
      if (std::chrono::steady_clock::now() > end) throw std::runtime_error("no frame in time");
      std::vector<uint8_t> got;
      if (!readSome(got, std::chrono::milliseconds(50))) throw std::runtime_error("closed");
      decoder_.feed(got, [&](DecodedFrame&& f) { frames_.push_back(std::move(f)); });
    }
    DecodedFrame f = std::move(frames_.front());
    frames_.erase(frames_.begin());
    return f;
  }
  // Closes with RST instead of FIN (SO_LINGER 0).
  void reset() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }

 private:
  int fd_;
  FrameDecoder decoder_{1 << 30};
  std::vector<DecodedFrame> frames_;
};

inline std::vector<uint8_t> bytesOf(BytesStreamOutput& out) { return out.bytes().toVector(); }

// A handshake request offering `version`: up to 8.x at header version 7.10.0
// (which nodes before 8.18 accept), from 9.0 as a 9.x node sends it (header
// kV9HandshakeVersion, the release string in the body).
inline std::vector<uint8_t> handshakeRequest(int64_t id, TransportVersion version) {
  BytesStreamOutput out;
  if (version.onOrAfter(kFirst9xVersion)) {
    writeRequestFrame(out, {id, kV9HandshakeVersion, true}, kHandshakeAction, {},
                      BodyOf(TcpHandshakeRequest{version}), CompressionScheme::kNone);
    return bytesOf(out);
  }
  BytesStreamOutput inner;
  inner.writeVInt(version.id());
  BytesStreamOutput body;
  body.writeByteArray(inner.bytes().toVector());
  writeRequestFrame(out, {id, TransportVersion::V_7_10_0, true}, kHandshakeAction, {},
                    RawBody(body.bytes().toVector()), CompressionScheme::kNone);
  return bytesOf(out);
}

// A raw client that has completed the handshake with a TransportService.
inline RawSocket handshakenClient(uint16_t port,
                                  TransportVersion version = TransportVersion::current()) {
  RawSocket s = RawSocket::connectTo(port);
  s.write(handshakeRequest(1, version));
  DecodedFrame f = s.readFrame();
  if (!f.header.isHandshake() || !f.header.isResponse() || f.header.isError()) {
    throw std::runtime_error("no handshake response");
  }
  return s;
}

inline std::vector<uint8_t> requestFrame(int64_t id, const std::string& action,
                                         const Writeable& body,
                                         TransportVersion v = TransportVersion::current()) {
  BytesStreamOutput out;
  writeRequestFrame(out, {id, v, false}, action, {}, body, CompressionScheme::kNone);
  return bytesOf(out);
}

// A listening raw socket on an ephemeral loopback port.
class RawServer {
 public:
  RawServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 8);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~RawServer() { ::close(fd_); }
  uint16_t port() const { return port_; }
  RawSocket accept() { return RawSocket(::accept(fd_, nullptr, nullptr)); }
  // Accepts and answers the handshake at `version` (from 9.0 as a 9.x node
  // answers: at the request's header version, with the release string).
  RawSocket acceptAndHandshake(TransportVersion version = TransportVersion::current()) {
    RawSocket s = accept();
    DecodedFrame f = s.readFrame();
    BytesStreamOutput out;
    if (version.onOrAfter(kFirst9xVersion)) {
      writeResponseFrame(out, {f.header.request_id, TransportVersion(f.header.version_id), true},
                         {}, BodyOf(TcpHandshakeResponse{version}), CompressionScheme::kNone);
    } else {
      VersionReply body(version);
      writeResponseFrame(out, {f.header.request_id, version, true}, {}, body,
                         CompressionScheme::kNone);
    }
    s.write(bytesOf(out));
    return s;
  }

 private:
  struct VersionReply final : Writeable {
    TransportVersion v;
    explicit VersionReply(TransportVersion version) : v(version) {}
    void writeTo(StreamOutput& out) const override { out.writeVInt(v.id()); }
  };
  int fd_;
  uint16_t port_;
};

}  // namespace wirestream::transport::testing
