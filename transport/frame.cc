// Frame grammar (wire format §9), all integers big-endian:
//   'E' 'S'
//   int   length                 frame size - 6 (-1 alone: a ping, 45 53 FF FF FF FF)
//   long  requestId
//   byte  status                 0x01 response, 0x02 error, 0x04 compressed, 0x08 handshake
//   int   version                TransportVersion id the variable header and body use
//   int   variableHeaderSize     bytes of the variable header below
//   variable header:
//     VInt n, n x (String key, String value)               request headers
//     VInt n, n x (String key, VInt m, m x String)         response headers
//     (read as ES reads them: a repeated key keeps the last value, a
//     response header's values are a set)
//     requests only:
//       version < 8.0.0: VInt 0                            ES's "features" array, empty
//       String action
//   body                         requests: TaskId (parent task, 00 = none), then the
//                                Writeable; responses: the Writeable; with 0x04:
//                                that compressed, "DFL\0" or "LZ4\0" first
//                                (compression.cc)
//   error body:                  writeException(RemoteTransportException(cause))
//                                (remote_exception.cc)
#include "transport/frame.h"

#include <algorithm>
#include <cassert>

#include "codec/byte_order.h"
#include "stream/errors.h"
#include "transport/compression.h"
#include "transport/handshake.h"
#include "transport/remote_exception.h"

namespace wirestream::transport {

void encodeHeader(const FrameHeader& h, uint8_t* dst) {
  dst[0] = 'E';
  dst[1] = 'S';
  codec::storeBig32(dst + 2, static_cast<uint32_t>(h.length));
  codec::storeBig64(dst + 6, static_cast<uint64_t>(h.request_id));
  dst[14] = h.status;
  codec::storeBig32(dst + 15, static_cast<uint32_t>(h.version_id));
  codec::storeBig32(dst + 19, static_cast<uint32_t>(h.variable_header_size));
}

FrameHeader decodeHeader(const uint8_t* src) {
  FrameHeader h;
  h.length = static_cast<int32_t>(codec::loadBig32(src + 2));
  h.request_id = static_cast<int64_t>(codec::loadBig64(src + 6));
  h.status = src[14];
  h.version_id = static_cast<int32_t>(codec::loadBig32(src + 15));
  h.variable_header_size = static_cast<int32_t>(codec::loadBig32(src + 19));
  return h;
}

void writeThreadContext(StreamOutput& out, const RequestHeaders& request_headers,
                        const ResponseHeaders& response_headers) {
  auto string = [](StreamOutput& o, const std::string& s) { o.writeString(s); };
  out.writeMap(request_headers, string, string);
  out.writeMap(response_headers, string, [](StreamOutput& o, const std::vector<std::string>& v) {
    o.writeStringArray(std::span<const std::string>(v));
  });
}

namespace {

// Charges each header string read against the caps of frame.h, so that what a
// frame's headers cost is bounded before the maps hold it.
class HeaderBudget {
 public:
  std::string read(StreamInput& in) {
    if (++entries_ > kMaxThreadContextEntries) {
      internal::throwLimitExceeded("thread context holds more than " +
                                   std::to_string(kMaxThreadContextEntries) +
                                   " header strings (kMaxThreadContextEntries)");
    }
    std::string s = in.readString();
    bytes_ += s.size();
    if (bytes_ > kMaxThreadContextBytes) {
      internal::throwLimitExceeded("thread context headers of at least [" + std::to_string(bytes_) +
                                   "] bytes, more than " + std::to_string(kMaxThreadContextBytes) +
                                   " (kMaxThreadContextBytes)");
    }
    return s;
  }

 private:
  size_t entries_ = 0;
  size_t bytes_ = 0;
};

// Keeps the first occurrence of each value, in order (a header's values are
// a set in ES). A stable sort of their indices finds the repeats in
// O(n log n) comparisons whatever the strings: std::find per value made one
// frame of many values cost quadratic time on the I/O thread, and a hash set
// could be flooded with colliding strings.
void dropRepeatedValues(std::vector<std::string>& values) {
  if (values.size() < 2) return;
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return values[x] < values[y]; });
  std::vector<bool> keep(values.size(), false);
  for (size_t k = 0; k < order.size(); ++k) {
    keep[order[k]] = k == 0 || values[order[k]] != values[order[k - 1]];
  }
  size_t out = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!keep[i]) continue;
    if (out != i) values[out] = std::move(values[i]);
    ++out;
  }
  values.resize(out);
}

}  // namespace

void readThreadContext(StreamInput& in, RequestHeaders& request_headers,
                       ResponseHeaders& response_headers) {
  // As ES's readHeadersFromStream: HashMap.put keeps a repeated key's last
  // value; a response header's values form a set (first occurrence kept).
  request_headers.clear();
  response_headers.clear();
  HeaderBudget budget;
  const int32_t requests = in.readArraySize(2);
  for (int32_t i = 0; i < requests; ++i) {
    std::string key = budget.read(in);
    request_headers[std::move(key)] = budget.read(in);
  }
  const int32_t responses = in.readArraySize(2);
  for (int32_t i = 0; i < responses; ++i) {
    std::string key = budget.read(in);
    std::vector<std::string> values;
    const int32_t n = in.readArraySize(1);
    for (int32_t j = 0; j < n; ++j) values.push_back(budget.read(in));
    dropRepeatedValues(values);
    response_headers[std::move(key)] = std::move(values);
  }
}

namespace {

const RequestHeaders kNoRequestHeaders;
const ResponseHeaders kNoResponseHeaders;

// The shared tail of every writer: body (maybe compressed) after the variable
// header, then the fixed header at offset 0.
size_t finishFrame(BytesStreamOutput& out, const FrameIds& ids, uint8_t status,
                   size_t variable_start, const Writeable& body, CompressionScheme compression) {
  const size_t variable_size = out.size() - variable_start;
  if (compression != CompressionScheme::kNone) {
    BytesStreamOutput plain;
    plain.setTransportVersion(ids.version);
    body.writeTo(plain);
    compressBody(compression, plain.bytes(), out);
    status |= status::kCompressed;
  } else {
    body.writeTo(out);
  }
  const size_t frame_size = out.size();
  FrameHeader h;
  h.length = static_cast<int32_t>(frame_size - kMarkerAndLengthSize);
  h.request_id = ids.request_id;
  h.status = status;
  h.version_id = ids.version.id();
  h.variable_header_size = static_cast<int32_t>(variable_size);
  uint8_t header[kHeaderSize];
  encodeHeader(h, header);
  out.seek(0);
  // Before 7.6.0 the header ends at the version (the answer to an ES 7.x
  // handshake request, which comes at 6.8.0).
  const bool legacy = ids.version.before(kVariableHeaderSizeVersion);
  out.writeBytes(std::span<const uint8_t>(header, legacy ? kLegacyHeaderSize : kHeaderSize));
  out.seek(frame_size);
  return frame_size;
}

// Reserves the fixed header; returns where the variable header starts.
size_t startFrame(BytesStreamOutput& out, const FrameIds& ids) {
  assert(out.size() == 0);
  out.setTransportVersion(ids.version);
  const size_t size =
      ids.version.before(kVariableHeaderSizeVersion) ? kLegacyHeaderSize : kHeaderSize;
  out.skip(size);
  return size;
}

uint8_t baseStatus(const FrameIds& ids) { return ids.handshake ? status::kHandshake : 0; }

}  // namespace

namespace {
// ES's TransportRequest.writeTo: the parent TaskId, then the request's fields.
struct RequestBody final : Writeable {
  const Writeable& body;
  explicit RequestBody(const Writeable& b) : body(b) {}
  void writeTo(StreamOutput& out) const override {
    TaskId().writeTo(out);
    body.writeTo(out);
  }
};
}  // namespace

size_t writeRequestFrame(BytesStreamOutput& out, const FrameIds& ids, std::string_view action,
                         const RequestHeaders& headers, const Writeable& body,
                         CompressionScheme compression) {
  const size_t start = startFrame(out, ids);
  writeThreadContext(out, headers, kNoResponseHeaders);
  if (ids.version.before(TransportVersion::V_8_0_0)) out.writeVInt(0);
  out.writeString(action);
  return finishFrame(out, ids, baseStatus(ids), start, RequestBody(body), compression);
}

size_t writeResponseFrame(BytesStreamOutput& out, const FrameIds& ids,
                          const ResponseHeaders& headers, const Writeable& body,
                          CompressionScheme compression) {
  const size_t start = startFrame(out, ids);
  writeThreadContext(out, kNoRequestHeaders, headers);
  return finishFrame(out, ids, baseStatus(ids) | status::kResponse, start, body, compression);
}

namespace {
struct ExceptionBody final : Writeable {
  const RemoteException& exception;
  explicit ExceptionBody(const RemoteException& e) : exception(e) {}
  void writeTo(StreamOutput& out) const override { writeException(out, &exception); }
};
}  // namespace

size_t writeErrorFrame(BytesStreamOutput& out, const FrameIds& ids,
                       const RemoteException& exception, const ResponseHeaders& headers) {
  const size_t start = startFrame(out, ids);
  writeThreadContext(out, kNoRequestHeaders, headers);
  // ES never marks an error response as a handshake, nor compresses it.
  return finishFrame(out, ids, status::kResponse | status::kError, start, ExceptionBody(exception),
                     CompressionScheme::kNone);
}

}  // namespace wirestream::transport
