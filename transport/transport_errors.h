// The exceptions a transport call fails with.
//
//   try { auto r = service.sendRequest<Resp>(conn, "act", req, read).get(); }
//   catch (const RemoteTransportError& e) { e.type(); }   // the handler threw
//   catch (const NodeDisconnectedError&) {}               // connection lost
//
// Every TransportError carries an Elasticsearch-style type name
// ("illegal_argument_exception") that is what travels in an error frame: a
// handler that throws TransportError("my_type", "...") makes the caller see a
// RemoteTransportError with type() == "my_type". Value types; thread-safe.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace wirestream::transport {

class TransportError : public std::runtime_error {
 public:
  TransportError(std::string type, const std::string& message)
      : std::runtime_error(message), type_(std::move(type)) {}
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

// The remote handler failed; type() and what() are the remote exception's.
class RemoteTransportError : public TransportError {
 public:
  using TransportError::TransportError;
};

// Connecting or the handshake failed.
class ConnectTransportError : public TransportError {
 public:
  explicit ConnectTransportError(const std::string& message)
      : TransportError("connect_transport_exception", message) {}
};

// The TLS handshake with the peer failed: the peer's certificate is not
// trusted, has expired or names another host, the peer refused ours, or it
// does not speak TLS. reason() is OpenSSL's ("certificate has expired").
class TlsHandshakeError : public ConnectTransportError {
 public:
  TlsHandshakeError(const std::string& message, std::string reason)
      : ConnectTransportError(message), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// TransportOptions::tls cannot be used: a certificate, key or CA file is
// missing, is not PEM, or the key does not match the certificate or its
// passphrase. Thrown by the TransportService constructor or listen();
// file() is the offending file, also named in what().
class TlsConfigError : public TransportError {
 public:
  TlsConfigError(std::string file, const std::string& message)
      : TransportError("ssl_config_exception", message), file_(std::move(file)) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The connection closed (peer reset, garbage, shutdown) before the response.
class NodeDisconnectedError : public TransportError {
 public:
  explicit NodeDisconnectedError(const std::string& message)
      : TransportError("node_disconnected_exception", message) {}
};

// No response within the request's timeout.
class ReceiveTimeoutError : public TransportError {
 public:
  explicit ReceiveTimeoutError(const std::string& message)
      : TransportError("receive_timeout_transport_exception", message) {}
};

// The type name an error frame carries for `error`: TransportError's own
// type, else a name for the standard and stream exceptions.
std::string errorTypeOf(std::exception_ptr error);
// what() of the exception, or "unknown exception".
std::string errorMessageOf(std::exception_ptr error);

}  // namespace wirestream::transport
