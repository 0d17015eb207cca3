// Error body grammar (ES StreamOutput.writeException), all through writeException(e):
//   e == null                     boolean false (00)
//   special Java kinds            01, VInt kind, then by kind:
//     6 IllegalArgument, 7 AlreadyClosed, 9 Security, 14 IllegalState,
//     15 LockObtainFailed, 17 IO:  OptionalString message, writeException(cause), stack
//     4, 5, 8 EOF, 10, 11, 12, 16: OptionalString message, stack
//     1 CorruptIndex:              OptionalString message, OptionalString resource, cause, stack
//     2 IndexFormatTooNew:         OptionalString resource, 3 x int, stack
//     3 IndexFormatTooOld:         OptionalString resource, boolean (3 x int | OptionalString),
//     stack 13 FileSystem:               VInt subclass, 3 x OptionalString, OptionalString message,
//     stack 18 EsRejectedExecution:      boolean isExecutorShutdown, OptionalString message, stack
//   ElasticsearchException        01, 00, VInt registry id, then ElasticsearchException.writeTo:
//     OptionalString message, writeException(cause), stack,
//     headers and metadata: VInt n, n x (String key, VInt m, m x String),
//     then the class's own fields:
//       ActionTransport 20, ReceiveTimeout 83, RemoteTransport 103,
//       ConnectTransport 12, NodeDisconnected 84:
//                                  version < 8.1.0: optional TransportAddress (00),
//                                  OptionalString action (00); 12 and 84 also an
//                                  optional DiscoveryNode (00)
//       NotSerializableExceptionWrapper 62: String name
//       ActionNotFoundTransport 101: OptionalString action
//       CircuitBreaking 133:       long byteLimit, long bytesWanted, VInt durability
//       TooManyBuckets 149:        int maxBuckets
//   stack                         VInt n, n x (String class, OptionalString file,
//                                 String method, VInt line); VInt m, m x writeException
#include "transport/remote_exception.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "stream/errors.h"
#include "stream/string_codec.h"
#include "transport/handshake.h"

namespace wirestream::transport {

namespace {

constexpr TransportVersion kV8_1_0 = TransportVersion::fromRelease(8, 1, 0);
// ES's StreamOutput MAX_NESTED_EXCEPTION_LEVEL.
constexpr int kMaxNestedLevel = 100;

struct IdName {
  int32_t id;
  int32_t since;  // the TransportVersion id ES writes it from (0: always)
  const char* name;
};

// ES's ElasticsearchExceptionHandle ids (7.10 to 9.5), named as ES names them
// (getExceptionName: the simple class name without "Elasticsearch", in
// underscore case). Sorted by id, then by gate: an id ES gave two classes has two rows.
constexpr IdName kEsIds[] = {
#include "transport/es_exception_ids.inc"
};

const char* javaKindName(int32_t kind) {
  switch (kind) {
    case 1:
      return "corrupt_index_exception";
    case 2:
      return "index_format_too_new_exception";
    case 3:
      return "index_format_too_old_exception";
    case 4:
      return "null_pointer_exception";
    case 5:
      return "number_format_exception";
    case 6:
      return "illegal_argument_exception";
    case 7:
      return "already_closed_exception";
    case 8:
      return "e_o_f_exception";
    case 9:
      return "security_exception";
    case 10:
      return "string_index_out_of_bounds_exception";
    case 11:
      return "array_index_out_of_bounds_exception";
    case 12:
      return "file_not_found_exception";
    case 13:
      return "file_system_exception";
    case 14:
      return "illegal_state_exception";
    case 15:
      return "lock_obtain_failed_exception";
    case 16:
      return "interrupted_exception";
    case 17:
      return "i_o_exception";
    case 18:
      return "es_rejected_execution_exception";
    default:
      return nullptr;
  }
}

const char* fileSystemName(int32_t sub) {
  static const char* kNames[] = {
      "no_such_file_exception",        "not_directory_exception",
      "directory_not_empty_exception", "atomic_move_not_supported_exception",
      "file_already_exists_exception", "access_denied_exception",
      "file_system_loop_exception",    "file_system_exception"};
  return sub >= 0 && sub < 8 ? kNames[sub] : nullptr;
}

bool kindHasCause(int32_t kind) {
  return kind == 6 || kind == 7 || kind == 9 || kind == 14 || kind == 15 || kind == 17;
}
bool kindMessageOnly(int32_t kind) {
  return kind == 4 || kind == 5 || kind == 8 || kind == 10 || kind == 11 || kind == 12 ||
         kind == 16;
}

bool isActionTransportFamily(int32_t id) {
  return id == 20 || id == 83 || id == 103 || id == 12 || id == 84;
}

bool hasKnownLayout(int32_t id) {
  switch (id) {
    case 12:
    case 20:
    case 34:
    case 62:
    case 68:
    case 83:
    case 84:
    case 86:
    case 101:
    case 102:
    case 103:
    case 133:
    case 149:
      return true;
    default:
      return false;
  }
}

// Exception messages may quote bytes from hostile input; an error must still
// be sendable, so invalid UTF-8 is replaced rather than refused.
std::string sendableText(std::string_view text) {
  try {
    measureUtf8(text);
    return std::string(text);
  } catch (const std::invalid_argument&) {
    std::string out(text);
    for (char& c : out) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
    return out;
  }
}

void writeOptionalText(StreamOutput& out, const std::optional<std::string>& s) {
  if (!s) {
    out.writeBoolean(false);
    return;
  }
  out.writeOptionalString(sendableText(*s));
}

void writeMapOfLists(StreamOutput& out, const std::map<std::string, std::vector<std::string>>& m) {
  out.writeVInt(static_cast<int32_t>(m.size()));
  for (const auto& [key, values] : m) {
    out.writeString(sendableText(key));
    out.writeVInt(static_cast<int32_t>(values.size()));
    for (const std::string& v : values) out.writeString(sendableText(v));
  }
}

void write(StreamOutput& out, const RemoteException* e, int level);

void writeStack(StreamOutput& out, const RemoteException& e, int level) {
  out.writeVInt(0);  // no stack frames: a C++ peer has none that mean anything to ES
  out.writeVInt(static_cast<int32_t>(e.suppressed.size()));
  for (const auto& s : e.suppressed) write(out, s.get(), level + 1);
}

void write(StreamOutput& out, const RemoteException* e, int level) {
  if (level > kMaxNestedLevel) {
    RemoteException cut;
    cut.java_kind = 14;
    cut.type = "illegal_state_exception";
    cut.message = "too many nested exceptions";
    write(out, &cut, 0);
    return;
  }
  if (e == nullptr) {
    out.writeBoolean(false);
    return;
  }
  out.writeBoolean(true);
  if (kindHasCause(e->java_kind) || kindMessageOnly(e->java_kind)) {
    out.writeVInt(e->java_kind);
    writeOptionalText(out, e->message);
    if (kindHasCause(e->java_kind)) write(out, e->cause.get(), level + 1);
    writeStack(out, *e, level);
    return;
  }
  int32_t id = e->es_id;
  std::optional<std::string> message = e->message;
  if (e->java_kind != RemoteException::kElasticsearch || !hasKnownLayout(id)) {
    // As ES sends what it cannot serialize: NotSerializableExceptionWrapper,
    // whose message is "name: message".
    id = 62;
    message = e->type + ": " + e->messageOrEmpty();
  }
  out.writeVInt(0);
  out.writeVInt(id);
  writeOptionalText(out, message);
  write(out, e->cause.get(), level + 1);
  writeStack(out, *e, level);
  writeMapOfLists(out, e->headers);
  writeMapOfLists(out, e->metadata);
  const bool pre81 = out.transportVersion().before(kV8_1_0);
  if (isActionTransportFamily(id) && pre81) {
    out.writeBoolean(false);                            // no TransportAddress
    out.writeBoolean(false);                            // no action
    if (id == 12 || id == 84) out.writeBoolean(false);  // no DiscoveryNode
  }
  switch (id) {
    case 62:
      out.writeString(sendableText(e->type.empty() ? "exception" : e->type));
      break;
    case 101:
      writeOptionalText(out, e->action);
      break;
    case 133:
      out.writeLong(e->bytes_limit);
      out.writeLong(e->bytes_wanted);
      out.writeVInt(e->durability);
      break;
    case 149:
      out.writeInt(e->max_buckets);
      break;
    default:
      break;
  }
}

// Reads one exception tree; stops (leaves the rest unread) once it meets a
// class whose fields it does not know.
class Reader {
 public:
  explicit Reader(StreamInput& in) : in_(in) {}

  std::shared_ptr<const RemoteException> read() {
    if (!in_.readBoolean()) return nullptr;
    StreamInput::NestingScope scope(in_);
    auto e = std::make_shared<RemoteException>();
    const int32_t kind = in_.readVInt();
    e->java_kind = kind;
    if (kind == RemoteException::kElasticsearch) {
      readElasticsearch(*e);
      return e;
    }
    const char* name = javaKindName(kind);
    if (name == nullptr) {
      // A kind from a newer ES: nothing after it can be located.
      e->type = "exception";
      e->message = "unknown exception kind [" + std::to_string(kind) + "]";
      stop(*e);
      return e;
    }
    e->type = name;
    if (kindHasCause(kind)) {
      e->message = in_.readOptionalString();
      e->cause = read();
    } else if (kindMessageOnly(kind)) {
      e->message = in_.readOptionalString();
    } else if (kind == 1) {
      e->message = in_.readOptionalString();
      (void)in_.readOptionalString();  // resource description
      e->cause = read();
    } else if (kind == 2) {
      (void)in_.readOptionalString();
      for (int i = 0; i < 3; ++i) (void)in_.readInt();
    } else if (kind == 3) {
      (void)in_.readOptionalString();
      if (in_.readBoolean()) {
        for (int i = 0; i < 3; ++i) (void)in_.readInt();
      } else {
        (void)in_.readOptionalString();
      }
    } else if (kind == 13) {
      const int32_t sub = in_.readVInt();
      const char* sub_name = fileSystemName(sub);
      if (sub_name == nullptr) {
        internal::throwCorrupt("unknown FileSystemException with index " + std::to_string(sub));
      }
      e->type = sub_name;
      for (int i = 0; i < 3; ++i) (void)in_.readOptionalString();
      e->message = in_.readOptionalString();
    } else if (kind == 18) {
      (void)in_.readBoolean();
      e->message = in_.readOptionalString();
    }
    if (!stopped_) readStack(*e);
    return e;
  }

 private:
  void stop(RemoteException& e) {
    e.partial = true;
    stopped_ = true;
  }

  void readStack(RemoteException& e) {
    const int32_t frames = in_.readArraySize(4);
    for (int32_t i = 0; i < frames; ++i) {
      (void)in_.readString();
      (void)in_.readOptionalString();
      (void)in_.readString();
      (void)in_.readVInt();
    }
    const int32_t suppressed = in_.readArraySize(1);
    for (int32_t i = 0; i < suppressed && !stopped_; ++i) {
      if (auto s = read()) e.suppressed.push_back(std::move(s));
    }
  }

  std::map<std::string, std::vector<std::string>> readMapOfLists() {
    std::map<std::string, std::vector<std::string>> m;
    const int32_t n = in_.readArraySize(2);
    for (int32_t i = 0; i < n; ++i) {
      std::string key = in_.readString();
      m[std::move(key)] = in_.readStringArray();  // a repeated key keeps the last, as ES
    }
    return m;
  }

  void readElasticsearch(RemoteException& e) {
    const int32_t id = in_.readVInt();
    e.es_id = id;
    const std::string_view name = esExceptionName(id, in_.transportVersion());
    e.type = name.empty() ? "exception" : std::string(name);
    e.message = in_.readOptionalString();
    e.cause = read();
    if (stopped_) return;
    readStack(e);
    if (stopped_) return;
    e.headers = readMapOfLists();
    e.metadata = readMapOfLists();
    if (!hasKnownLayout(id)) {
      stop(e);
      return;
    }
    if (isActionTransportFamily(id) && in_.transportVersion().before(kV8_1_0)) {
      if (in_.readBoolean()) (void)TransportAddress::readFrom(in_);
      e.action = in_.readOptionalString();
      if ((id == 12 || id == 84) && in_.readBoolean()) (void)DiscoveryNode::readFrom(in_);
    }
    switch (id) {
      case 62:
        e.type = in_.readString();
        break;
      case 101:
        e.action = in_.readOptionalString();
        break;
      case 133: {
        e.bytes_limit = in_.readLong();
        e.bytes_wanted = in_.readLong();
        const int32_t durability = in_.readVInt();
        if (durability != 0 && durability != 1) {
          internal::throwCorrupt("unknown circuit breaker durability [" +
                                 std::to_string(durability) + "]");
        }
        e.durability = durability;
        break;
      }
      case 149:
        e.max_buckets = in_.readInt();
        break;
      default:
        break;
    }
  }

  StreamInput& in_;
  bool stopped_ = false;
};

std::shared_ptr<RemoteException> make(int32_t kind, int32_t id, std::string type,
                                      const std::string& message) {
  auto e = std::make_shared<RemoteException>();
  e->java_kind = kind;
  e->es_id = id;
  e->type = std::move(type);
  e->message = message;
  return e;
}

}  // namespace

void writeException(StreamOutput& out, const RemoteException* e) { write(out, e, 0); }

std::shared_ptr<const RemoteException> readException(StreamInput& in) { return Reader(in).read(); }

std::string_view esExceptionName(int32_t id) {
  auto range = std::equal_range(std::begin(kEsIds), std::end(kEsIds), IdName{id, 0, nullptr},
                                [](const IdName& a, const IdName& b) { return a.id < b.id; });
  return range.first == range.second ? std::string_view()
                                     : std::string_view(std::prev(range.second)->name);
}

std::string_view esExceptionName(int32_t id, TransportVersion version) {
  auto range = std::equal_range(std::begin(kEsIds), std::end(kEsIds), IdName{id, 0, nullptr},
                                [](const IdName& a, const IdName& b) { return a.id < b.id; });
  if (range.first == range.second) return {};
  // The newest class of the id at or below the version; below every gate, the oldest, since
  // ES reads any id it knows whatever the stream's version.
  const IdName* pick = range.first;
  for (auto it = range.first; it != range.second; ++it) {
    if (it->since <= version.id()) pick = it;
  }
  return pick->name;
}

std::shared_ptr<const RemoteException> exceptionFromTypeAndMessage(const std::string& type,
                                                                   const std::string& message) {
  if (type == "illegal_argument_exception") return make(6, 0, type, message);
  if (type == "illegal_state_exception") return make(14, 0, type, message);
  if (type == "e_o_f_exception" || type == "eof_exception") {
    return make(8, 0, "e_o_f_exception", message);
  }
  static const std::unordered_map<std::string, int32_t> kByType = [] {
    std::unordered_map<std::string, int32_t> m;
    for (const IdName& n : kEsIds) {
      if (hasKnownLayout(n.id) && n.id != 62) m.emplace(n.name, n.id);
    }
    return m;
  }();
  auto it = kByType.find(type);
  if (it == kByType.end()) {
    auto e = make(RemoteException::kElasticsearch, 62, type, type + ": " + message);
    return e;
  }
  auto e = make(RemoteException::kElasticsearch, it->second, type, message);
  if (it->second == 101) {
    // "No handler for action [a]" carries the action too.
    const std::string prefix = "No handler for action [";
    if (message.compare(0, prefix.size(), prefix) == 0 && message.back() == ']') {
      e->action = message.substr(prefix.size(), message.size() - prefix.size() - 1);
    }
  }
  return e;
}

std::shared_ptr<const RemoteException> exceptionFromError(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const RemoteTransportError& e) {
    return e.remoteException();
  } catch (const ::wirestream::TooManyBucketsError& e) {  // a reduce in a handler
    return TooManyBucketsError(e.what(), e.maxBuckets()).remoteException();
  } catch (const TransportError& e) {
    return exceptionFromTypeAndMessage(e.type(), e.what());
  } catch (const EndOfStreamError& e) {
    return make(8, 0, "e_o_f_exception", e.what());
  } catch (const std::invalid_argument& e) {
    return make(6, 0, "illegal_argument_exception", e.what());
  } catch (const std::exception& e) {
    return exceptionFromTypeAndMessage(errorTypeOf(error), e.what());
  } catch (...) {
    return exceptionFromTypeAndMessage("exception", "unknown exception");
  }
}

std::shared_ptr<const RemoteException> wrapInRemoteTransport(
    const std::string& node_name, const std::string& address, const std::string& action,
    std::shared_ptr<const RemoteException> cause) {
  auto e = make(RemoteException::kElasticsearch, 103, "remote_transport_exception",
                "[" + node_name + "][" + address + "][" + action + "]");
  e->cause = std::move(cause);
  return e;
}

std::string humanBytes(int64_t bytes) {
  static const char* kSuffixes[] = {"b", "kb", "mb", "gb", "tb", "pb"};
  int unit = 0;
  while (unit < 5 && bytes >= (int64_t{1} << (10 * (unit + 1)))) ++unit;
  const double value = static_cast<double>(bytes) / static_cast<double>(int64_t{1} << (10 * unit));
  // Java's Double.toString is the shortest text that round-trips; ES keeps the
  // first decimal digit, dropping it when it is 0.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  std::string text(buf, ec == std::errc() ? end : buf);
  const size_t dot = text.find('.');
  if (dot == std::string::npos || text[dot + 1] == '0') {
    return text.substr(0, dot) + kSuffixes[unit];
  }
  return text.substr(0, dot + 2) + kSuffixes[unit];
}

std::string inFlightBreakerMessage(const std::string& label, int64_t wanted, int64_t limit) {
  return "[inflight_requests] Data too large, data for [" + label + "] would be [" +
         std::to_string(wanted) + "/" + humanBytes(wanted) +
         "], which is larger than the limit of [" + std::to_string(limit) + "/" +
         humanBytes(limit) + "]";
}

}  // namespace wirestream::transport
