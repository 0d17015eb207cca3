// Transport frames (wire format §9): the fixed 23-byte header, the variable
// header, and the writers that build a whole frame in a BytesStreamOutput.
//
// Example (runs: frame):
//   #include <sys/uio.h>
//   #include "transport/zero_copy.h"
//   ByteArrayBody request;  // any Writeable
//   TransportVersion v = TransportVersion::current();
//   BytesStreamOutput out;
//   writeRequestFrame(out, {.request_id = 7, .version = v}, "indices:data/read",
//                     /*headers=*/{}, request, CompressionScheme::kNone);
//   BytesReference bytes = out.bytes();  // keep it alive while writing
//   std::vector<iovec> gather;           // for writev(): no flattening
//   for (std::span<const uint8_t> piece : bytes.pieces())
//     gather.push_back({const_cast<uint8_t*>(piece.data()), piece.size()});
//
// A frame is written body first: the writer skips the 23 header bytes, writes
// the variable header and the body, then seeks back and fills in the header,
// whose length field is only known at the end. Nothing is copied: the pages of
// `out` are the bytes that go on the wire.
//
// Free functions over caller-owned outputs; thread-safe as long as each output
// is used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/transport_version.h"
#include "stream/writeable.h"
#include "transport/compression.h"
#include "transport/transport_errors.h"

namespace wirestream::transport {

// 'E' 'S' int length, long requestId, byte status, int version, int
// variable-header size.
inline constexpr size_t kHeaderSize = 23;
// The bytes the length field does not count: the magic and the length itself.
inline constexpr size_t kMarkerAndLengthSize = 6;
// The smallest valid length: requestId + status + version + variable size.
inline constexpr int32_t kMinFrameLength = kHeaderSize - kMarkerAndLengthSize;
inline constexpr int32_t kPingLength = -1;
inline constexpr uint8_t kPingFrame[6] = {'E', 'S', 0xFF, 0xFF, 0xFF, 0xFF};

namespace status {
inline constexpr uint8_t kResponse = 0x01;
inline constexpr uint8_t kError = 0x02;
inline constexpr uint8_t kCompressed = 0x04;
inline constexpr uint8_t kHandshake = 0x08;
}  // namespace status

// The action name of the handshake; its frames also carry status::kHandshake.
inline constexpr std::string_view kHandshakeAction = "internal:tcp/handshake";

// ES's ThreadContext headers: request headers are string -> string, response
// headers string -> list of strings. Ordered maps so the bytes are
// deterministic.
using RequestHeaders = std::map<std::string, std::string>;
using ResponseHeaders = std::map<std::string, std::vector<std::string>>;

// ES writes the variable-header size from 7.6.0 on. Before, the fixed header
// is 19 bytes; ES 7.x still sends its handshake request at 6.8.0 that way,
// and answers and takes the answer at that version.
inline constexpr TransportVersion kVariableHeaderSizeVersion =
    TransportVersion::fromRelease(7, 6, 0);
inline constexpr size_t kLegacyHeaderSize = kHeaderSize - 4;

struct FrameHeader {
  int32_t length = 0;  // frame size - 6; kPingLength for a ping
  int64_t request_id = 0;
  uint8_t status = 0;
  int32_t version_id = 0;
  // The size field; for a legacy frame (no such field) the size the variable
  // header turned out to have once read (InboundMessage), -1 before.
  int32_t variable_header_size = 0;
  // A 19-byte header (version before kVariableHeaderSizeVersion): accepted
  // for handshakes only, requests and answers (FrameDecoder).
  bool legacy = false;

  bool isPing() const { return length == kPingLength; }
  bool isRequest() const { return (status & status::kResponse) == 0; }
  bool isResponse() const { return (status & status::kResponse) != 0; }
  bool isError() const { return (status & status::kError) != 0; }
  bool isCompressed() const { return (status & status::kCompressed) != 0; }
  bool isHandshake() const { return (status & status::kHandshake) != 0; }
  // Bytes after the fixed header: the variable header and the body.
  size_t contentSize() const {
    return isPing() ? 0 : static_cast<size_t>(length) - kMinFrameLength + (legacy ? 4 : 0);
  }
  size_t frameSize() const {
    return isPing() ? kMarkerAndLengthSize : static_cast<size_t>(length) + kMarkerAndLengthSize;
  }
  TransportVersion version() const { return TransportVersion(version_id); }
};

// Encodes / decodes the 23 header bytes. decodeHeader does no validation;
// FrameDecoder does that.
void encodeHeader(const FrameHeader& header, uint8_t* dst);
[[nodiscard]] FrameHeader decodeHeader(const uint8_t* src);

// The identity of one outbound frame.
struct FrameIds {
  int64_t request_id = 0;
  TransportVersion version = TransportVersion::current();
  bool handshake = false;
};

// The headers maps (StreamOutput::writeMap: VInt size, then key/value
// pairs). On read a repeated key keeps its last value and a response header's
// repeated values collapse into one, as ES's ThreadContext reads them, in
// time linear in the strings read. Reading refuses, with LimitExceededError,
// a thread context of more than kMaxThreadContextEntries strings (keys and
// values, repeats included) or kMaxThreadContextBytes bytes of them: ES sets
// no such caps, but its own headers (security, tracing, deprecation warnings)
// stay far below them, and they bound what one frame's headers make a node
// hold (the maps' overhead included) to a little over 1 MiB.
inline constexpr size_t kMaxThreadContextEntries = 4096;
inline constexpr size_t kMaxThreadContextBytes = size_t{1} << 20;
void writeThreadContext(StreamOutput& out, const RequestHeaders& request_headers,
                        const ResponseHeaders& response_headers);
void readThreadContext(StreamInput& in, RequestHeaders& request_headers,
                       ResponseHeaders& response_headers);

// Writes a whole frame into `out` (which must be empty). The body is written
// at ids.version; a request body is preceded by the empty parent TaskId (00),
// as ES's TransportRequest writes it; with a `compression` scheme other than
// kNone the body (TaskId included) is compressed in it (compression.h) and the
// status carries kCompressed. Returns the frame size.
size_t writeRequestFrame(BytesStreamOutput& out, const FrameIds& ids, std::string_view action,
                         const RequestHeaders& headers, const Writeable& body,
                         CompressionScheme compression);
size_t writeResponseFrame(BytesStreamOutput& out, const FrameIds& ids,
                          const ResponseHeaders& headers, const Writeable& body,
                          CompressionScheme compression);
// An error response: status kResponse | kError (never kHandshake nor
// kCompressed, as ES writes it), body writeException(exception)
// (remote_exception.h); ES sends RemoteTransportException("[node][address]
// [action]") around the handler's exception (wrapInRemoteTransport).
size_t writeErrorFrame(BytesStreamOutput& out, const FrameIds& ids,
                       const RemoteException& exception, const ResponseHeaders& headers = {});

}  // namespace wirestream::transport
