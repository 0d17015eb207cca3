// StreamInput: the reader side of the wire format (docs/wire-format.md).
//
// Example (runs: stream_input):
//   const uint8_t bytes[] = {0xAC, 0x02, 0x02, 'h', 'i'};
//   ByteArrayStreamInput in(bytes);          // does not own `bytes`
//   int32_t n = in.readVInt();               // 300
//   std::string s = in.readString();         // "hi"
//
// Input is untrusted. Every failure is a StreamError subclass (errors.h) whose
// message names the value; sizes are checked against the bytes left before
// anything is allocated, so no input makes a reader allocate more than the
// input justifies. A reader that throws leaves no partial result behind.
//
// A StreamInput reads from a chunk [pos_, end_) that a subclass provides; reads
// that fit in the chunk are inline, and only the chunk-crossing path calls the
// virtual nextChunk(). Varints decode unrolled when the chunk holds a whole
// maximal encoding. Not thread-safe: one reader at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "codec/byte_order.h"
#include "stream/errors.h"
#include "stream/transport_version.h"
#include "stream/typed_reads.h"
#include "stream/varint.h"
#include "stream/writeable.h"

namespace wirestream {

class BytesReference;
class NamedWriteableRegistry;
class GenericValue;
class StreamInput;
// stream/structured/structured_stream.h (for the deprecated member below).
GenericValue readGenericValue(StreamInput& in);

namespace internal {
template <typename T>
struct IsNullableHandle : std::false_type {};
template <typename T, typename D>
struct IsNullableHandle<std::unique_ptr<T, D>> : std::true_type {};
template <typename T>
struct IsNullableHandle<std::shared_ptr<T>> : std::true_type {};
}  // namespace internal

class StreamInput : public TypedReads<StreamInput> {
 public:
  StreamInput() = default;
  StreamInput(const StreamInput&) = delete;
  StreamInput& operator=(const StreamInput&) = delete;
  virtual ~StreamInput() = default;

  TransportVersion transportVersion() const { return version_; }
  void setTransportVersion(TransportVersion version) { version_ = version; }

  // Largest size readArraySize() accepts (LimitExceededError above it).
  int32_t maxArraySize() const { return max_array_size_; }
  void setMaxArraySize(int32_t max) { max_array_size_ = max; }

  // Bytes left to read.
  size_t available() const { return static_cast<size_t>(end_ - pos_) + availableAfterChunk(); }

  // ---- primitives (wire format §1) ----

  [[nodiscard]] uint8_t readByte() {
    if (pos_ == end_) [[unlikely]]
      return readByteSlow();
    return *pos_++;
  }

  // Fills `out` completely or throws EndOfStreamError having consumed nothing.
  void readBytes(std::span<uint8_t> out) {
    if (static_cast<size_t>(end_ - pos_) >= out.size()) [[likely]] {
      if (!out.empty()) std::memcpy(out.data(), pos_, out.size());
      pos_ += out.size();
    } else {
      readBytesSlow(out.data(), out.size());
    }
  }

  // Skips n bytes, or throws EndOfStreamError having skipped nothing.
  void skip(size_t n);

  // readBoolean, readShort, readInt, readLong, readFloat, readDouble, readVInt,
  // readVLong and readZLong are TypedReads' (stream/typed_reads.h), over
  // getBig / getVarint32 / getVarint64 below: one comparison a value while the
  // bytes are in the chunk.

  // 00, 01, or 02 for absent.
  [[nodiscard]] std::optional<bool> readOptionalBoolean();

  [[nodiscard]] std::optional<int32_t> readOptionalVInt();
  [[nodiscard]] std::optional<int64_t> readOptionalVLong();
  [[nodiscard]] std::optional<int32_t> readOptionalInt();
  [[nodiscard]] std::optional<int64_t> readOptionalLong();
  [[nodiscard]] std::optional<float> readOptionalFloat();
  [[nodiscard]] std::optional<double> readOptionalDouble();

  // ---- strings and bytes (wire format §2) ----

  // Returns UTF-8; surrogate pairs on the wire become 4-byte sequences.
  [[nodiscard]] std::string readString();
  [[nodiscard]] std::optional<std::string> readOptionalString();
  [[nodiscard]] std::vector<uint8_t> readByteArray();
  [[nodiscard]] std::vector<uint8_t> readBytesRef() { return readByteArray(); }

  // A VInt size for `min_bytes_each`-byte elements, validated before the
  // caller allocates: negative -> CorruptStreamError, above maxArraySize() ->
  // LimitExceededError, more than the bytes left can hold -> EndOfStreamError.
  // Inline while the elements would fit in the current chunk.
  [[nodiscard]] int32_t readArraySize(size_t min_bytes_each = 1) {
    int32_t size = readVInt();
    if (arraySizeFitsChunk(size, min_bytes_each, pos_, end_)) [[likely]]
      return size;
    return checkArraySize(size, min_bytes_each);
  }

  // The next n bytes, consumed, when the current chunk holds them all;
  // otherwise nullptr, and nothing is consumed (read them with readBytes).
  [[nodiscard]] const uint8_t* readInChunk(size_t n) { return takeInChunk(pos_, end_, n); }

  // Consumes the next byte if it is `expected` and in the current chunk;
  // otherwise consumes nothing and returns false (also at a chunk's end:
  // callers then read the value the general way). For the empty list most
  // leaf buckets carry (one 00 byte).
  [[nodiscard]] bool readByteIf(uint8_t expected) { return takeByteIf(pos_, end_, expected); }

  [[nodiscard]] std::vector<std::string> readStringArray();
  // Decoded with the SIMD batch kernels (//simd) inside each chunk; a value
  // that crosses chunks, or is malformed, goes through readVInt / readVLong,
  // so the errors are theirs.
  [[nodiscard]] std::vector<int32_t> readVIntArray();
  [[nodiscard]] std::vector<int64_t> readVLongArray();
  [[nodiscard]] std::vector<int32_t> readIntArray();
  [[nodiscard]] std::vector<int64_t> readLongArray();
  [[nodiscard]] std::vector<float> readFloatArray();
  [[nodiscard]] std::vector<double> readDoubleArray();
  // The ByteStreamSplit arrays of StreamOutput::writeFloatArraySplit /
  // writeDoubleArraySplit (a wirestream extension).
  [[nodiscard]] std::vector<float> readFloatArraySplit();
  [[nodiscard]] std::vector<double> readDoubleArraySplit();

  // ---- nesting, bytes references, writeables, collections, maps
  //      (wire format §2) ----
  // The ES value types (generic values, time values, instants, enums, named
  // writeables) have free readers in stream/structured/structured_stream.h
  // (//stream/structured).

  // Nesting: every recursive reader (generic values, named writeables,
  // sub-aggregations) holds a NestingScope per level, so hostile input can
  // nest at most maxNestingDepth() levels (default 100) and never overflows
  // the stack: one level more is LimitExceededError naming the depth.
  static constexpr int32_t kDefaultMaxNestingDepth = 100;
  int32_t maxNestingDepth() const { return max_nesting_depth_; }
  void setMaxNestingDepth(int32_t max) { max_nesting_depth_ = max; }
  int32_t nestingDepth() const { return nesting_depth_; }

  // One level, for a recursive reader: hold one across reading the children.
  class NestingScope {
   public:
    explicit NestingScope(StreamInput& in) : in_(in) { in.enterNesting(); }
    ~NestingScope() { --in_.nesting_depth_; }
    NestingScope(const NestingScope&) = delete;
    NestingScope& operator=(const NestingScope&) = delete;

   private:
    StreamInput& in_;
  };

  // Any number of levels, for an iterative reader that keeps its own stack:
  // enter() per level opened (LimitExceededError past the limit), leave()
  // per level closed; the destructor leaves whatever is still entered.
  class NestingLevels {
   public:
    explicit NestingLevels(StreamInput& in) : in_(in) {}
    ~NestingLevels() { in_.nesting_depth_ -= entered_; }
    void enter() {
      in_.enterNesting();
      ++entered_;
    }
    void leave() {
      assert(entered_ > 0);
      --in_.nesting_depth_;
      --entered_;
    }
    NestingLevels(const NestingLevels&) = delete;
    NestingLevels& operator=(const NestingLevels&) = delete;

   private:
    StreamInput& in_;
    int32_t entered_ = 0;
  };

  // How many elements of `element_size` bytes a reader may reserve for a
  // validated `count`, so hostile sizes cannot make a reader allocate far
  // beyond the input; vectors grow past that as elements actually arrive.
  // The budget is max(4 KiB, 4 x bytes left), of which a level gets half at
  // nesting depth 0, a quarter at depth 1, ...: every open level's count is
  // checked against the same bytes left, so without the halving nested
  // containers would each reserve the whole budget (100 levels: 100x).
  size_t boundedReserve(size_t count, size_t element_size) const {
    size_t budget =
        std::max<size_t>(4096, 4 * available()) >> std::min<int32_t>(nesting_depth_ + 1, 63);
    return std::min(count, budget / std::max<size_t>(element_size, 1));
  }

  // VInt length + bytes, as an owning BytesReference.
  [[nodiscard]] BytesReference readBytesReference();
  // 00 -> nullopt, else VInt (length + 1) + bytes.
  [[nodiscard]] std::optional<BytesReference> readOptionalBytesReference();

  // The registry readNamedWriteable<C>(in) (stream/structured) uses; not
  // owned, may be null.
  const NamedWriteableRegistry* namedWriteableRegistry() const { return registry_; }
  void setNamedWriteableRegistry(const NamedWriteableRegistry* registry) { registry_ = registry; }

  // Presence boolean, then reader(*this). A reader returning a unique_ptr or
  // shared_ptr gives that pointer (null when absent); any other T gives
  // std::optional<T>.
  template <typename F>
  [[nodiscard]] auto readOptionalWriteable(F&& reader) {
    using T = std::invoke_result_t<F&, StreamInput&>;
    if constexpr (internal::IsNullableHandle<T>::value) {
      if (!readBoolean()) return T();
      return T(reader(*this));
    } else {
      if (!readBoolean()) return std::optional<T>();
      return std::optional<T>(reader(*this));
    }
  }

  // VInt count (validated: every element takes at least one byte), then
  // reader(*this) per element.
  template <typename F>
  [[nodiscard]] auto readCollection(F&& reader) {
    using T = std::invoke_result_t<F&, StreamInput&>;
    int32_t n = readArraySize();
    std::vector<T> out;
    out.reserve(boundedReserve(static_cast<size_t>(n), sizeof(T)));
    for (int32_t i = 0; i < n; ++i) out.push_back(reader(*this));
    return out;
  }

  // VInt size, then key_reader(*this), value_reader(*this) per entry, into
  // MapT (default std::map<K, V>). A repeated key is CorruptStreamError:
  // no writer produces one, and keeping either value would hide corruption.
  template <typename MapT = void, typename KR, typename VR>
  [[nodiscard]] auto readMap(KR&& key_reader, VR&& value_reader) {
    using K = std::invoke_result_t<KR&, StreamInput&>;
    using V = std::invoke_result_t<VR&, StreamInput&>;
    using M = std::conditional_t<std::is_void_v<MapT>, std::map<K, V>, MapT>;
    int32_t n = readArraySize();
    M out;
    for (int32_t i = 0; i < n; ++i) {
      K key = key_reader(*this);
      V value = value_reader(*this);
      if (!out.emplace(std::move(key), std::move(value)).second) throwDuplicateKey(i);
    }
    return out;
  }

  // ---- end of nesting, bytes references, writeables, collections, maps ----

  class Cursor;

  // The reader inside a Cursor::readEach run: the bytes are already known to
  // be there, so every read is unchecked and straight-line (values are still
  // validated: a VInt's 5th byte, a VLong's 10th). Only Cursor::readEach
  // makes one.
  class Reserved : public TypedReads<Reserved> {
   public:
    [[nodiscard]] uint8_t readByte() { return *pos_++; }

   private:
    friend class Cursor;
    friend class TypedReads<Reserved>;
    explicit Reserved(const uint8_t* pos) : pos_(pos) {}

    template <class U>
    U getBig() {
      U v = codec::loadBig<U>(pos_);
      pos_ += sizeof(U);
      return v;
    }
    int32_t getVarint32() {
      // The one-byte test before decodeVInt's own is not redundant: without
      // it readEach's unrolled run reads one-byte values at 16.4 µs per 64 Ki
      // instead of 12.2, and five-byte ones at 97 instead of 83 (measured).
      uint32_t b = *pos_;
      if (!(b & 0x80)) [[likely]] {
        ++pos_;
        return static_cast<int32_t>(b);
      }
      auto r = decodeVInt(pos_, pos_ + kMaxVIntBytes);
      pos_ = r.next;
      return r.value;
    }
    uint64_t getVarint64(bool zigzag) {
      auto r = internal::decodeVLongUnchecked(pos_, zigzag);
      pos_ = r.next;
      return r.value;
    }

    const uint8_t* pos_;
  };

  // A scoped direct-read cursor over the current chunk, for inner loops that
  // read many small values: it keeps the read position in a local (a
  // register) rather than in the StreamInput, where every read stores it
  // back. Same values and the same errors as the readers of the same names;
  // reads that cross chunks go through StreamInput's paths.
  //
  // Example (runs: stream_input_cursor):
  //   const uint8_t bytes[] = {0x01, 0xAC, 0x02, 0x05};  // VLongs 1, 300, 5
  //   ByteArrayStreamInput in(bytes);
  //   std::vector<int64_t> counts;
  //   {
  //     StreamInput::Cursor c(in);
  //     for (int32_t i = 0; i < 3; ++i) counts.push_back(c.readVLong());
  //   }  // the position goes back to `in` here (also when a read throws)
  //
  // While a Cursor is live, read only through it (withStream() lends the
  // StreamInput for a nested read and resumes after it). One per input.
  class Cursor : public TypedReads<Cursor> {
   public:
    explicit Cursor(StreamInput& in) : in_(in), pos_(in.pos_), end_(in.end_) {}
    ~Cursor() {
      if (pos_ != nullptr) in_.pos_ = pos_;
    }
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;

    [[nodiscard]] uint8_t readByte() {
      if (pos_ == end_) [[unlikely]]
        return slow([](StreamInput& in) { return in.readByteSlow(); });
      return *pos_++;
    }
    // As StreamInput::readInChunk and readByteIf.
    [[nodiscard]] const uint8_t* readInChunk(size_t n) { return takeInChunk(pos_, end_, n); }
    [[nodiscard]] bool readByteIf(uint8_t expected) { return takeByteIf(pos_, end_, expected); }

    void readBytes(std::span<uint8_t> out) {
      if (static_cast<size_t>(end_ - pos_) >= out.size()) [[likely]] {
        if (!out.empty()) std::memcpy(out.data(), pos_, out.size());
        pos_ += out.size();
      } else {
        slow([out](StreamInput& in) { in.readBytesSlow(out.data(), out.size()); });
      }
    }

    // As StreamInput::readArraySize.
    [[nodiscard]] int32_t readArraySize(size_t min_bytes_each = 1) {
      int32_t size = readVInt();
      if (in_.arraySizeFitsChunk(size, min_bytes_each, pos_, end_)) [[likely]]
        return size;
      return slow([size, min_bytes_each](StreamInput& in) {
        return in.checkArraySize(size, min_bytes_each);
      });
    }

    // Hands the StreamInput to read(in) for what the cursor does not read
    // itself (a nested aggregation, a string), then resumes after it.
    template <typename F>
    std::invoke_result_t<F&, StreamInput&> withStream(F&& read) {
      return slow(read);
    }

    // read_one(r) `count` times, where each call reads at most `max_bytes`
    // bytes (kMaxVIntBytes for one readVInt, kMaxVLongBytes for a readVLong).
    // The bytes of a run of values are checked once, so inside the run `r`
    // is a Reserved reader that checks no bounds per value (protobuf's
    // VarintParse form); where a run no longer fits in the chunk, `r` is this
    // Cursor. read_one must take `auto&` and use only readers both have
    // (Reserved's list). Same values and errors as the readers one by one.
    //
    // Example (runs: stream_input_read_each):
    //   const uint8_t bytes[] = {0x03, 0xAC, 0x02, 0x07};  // VInts 3, 300, 7
    //   ByteArrayStreamInput in(bytes);
    //   std::vector<int32_t> sizes;
    //   StreamInput::Cursor c(in);
    //   c.readEach(3, kMaxVIntBytes, [&](auto& r) { sizes.push_back(r.readVInt()); });
    template <typename F>
    void readEach(size_t count, size_t max_bytes, F&& read_one) {
      assert(max_bytes > 0);
      while (count > 0) {
        size_t n = std::min(count, static_cast<size_t>(end_ - pos_) / max_bytes);
        if (n == 0) {
          read_one(*this);
          --count;
          continue;
        }
        count -= n;
        Reserved r(pos_);
        // If read_one throws, the input keeps the position before the run.
        for (; n >= 4; n -= 4) {
          read_one(r);
          read_one(r);
          read_one(r);
          read_one(r);
        }
        for (; n > 0; --n) read_one(r);
        assert(r.pos_ <= end_);
        pos_ = r.pos_;
      }
    }

   private:
    friend class TypedReads<Cursor>;

    template <class U>
    U getBig() {
      if (end_ - pos_ >= static_cast<std::ptrdiff_t>(sizeof(U))) [[likely]] {
        U v = codec::loadBig<U>(pos_);
        pos_ += sizeof(U);
        return v;
      }
      return static_cast<U>(slow([](StreamInput& in) { return in.readFixedSlow(sizeof(U)); }));
    }
    int32_t getVarint32() {
      if (end_ - pos_ >= kMaxVIntBytes) [[likely]] {
        auto r = decodeVInt(pos_, end_);
        pos_ = r.next;
        return r.value;
      }
      return slow([](StreamInput& in) { return in.readVIntSlow(); });
    }
    uint64_t getVarint64(bool zigzag) {
      if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
        auto r = internal::decodeVLongUnchecked(pos_, zigzag);
        pos_ = r.next;
        return r.value;
      }
      return slow([zigzag](StreamInput& in) { return in.readVarint64Slow(zigzag); });
    }

    // The position goes back to the input around the out-of-line call and
    // is reloaded after it. While lent, pos_ is null, so that a call that
    // throws leaves the input's own position (the destructor keeps it).
    template <typename F>
    std::invoke_result_t<F&, StreamInput&> slow(F&& f) {
      in_.pos_ = pos_;
      pos_ = nullptr;
      if constexpr (std::is_void_v<std::invoke_result_t<F&, StreamInput&>>) {
        f(in_);
        pos_ = in_.pos_;
        end_ = in_.end_;
      } else {
        auto r = f(in_);
        pos_ = in_.pos_;
        end_ = in_.end_;
        return r;
      }
    }

    StreamInput& in_;
    const uint8_t* pos_;
    const uint8_t* end_;
  };

  // Deprecated (0.2.0): the member became the free readGenericValue(in) of
  // stream/structured/structured_stream.h; this forwards to it for code
  // written against the member (include that header, or the forwarding
  // stream/generic_value.h, where it is called). A template (its call
  // dependent) only so that the value type is needed where it is called.
  template <typename Value = GenericValue, typename Self = StreamInput>
  [[deprecated("use readGenericValue(in) from stream/structured/structured_stream.h")]] Value
  readGenericValue() {
    return ::wirestream::readGenericValue(static_cast<Self&>(*this));
  }

 protected:
  // The chunk the inline reads consume. A subclass sets it in nextChunk().
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;

  // Called when pos_ == end_: make [pos_, end_) the next non-empty chunk and
  // return true, or return false at the end of the input.
  virtual bool nextChunk() = 0;

  // Bytes in the chunks after the current one.
  virtual size_t availableAfterChunk() const = 0;

 private:
  friend class TypedReads<StreamInput>;

  template <class U>
  U getBig() {
    if (end_ - pos_ >= static_cast<std::ptrdiff_t>(sizeof(U))) [[likely]] {
      U v = codec::loadBig<U>(pos_);
      pos_ += sizeof(U);
      return v;
    }
    return static_cast<U>(readFixedSlow(sizeof(U)));
  }
  int32_t getVarint32() {
    if (end_ - pos_ >= kMaxVIntBytes) [[likely]] {
      auto r = decodeVInt(pos_, end_);
      pos_ = r.next;
      return r.value;
    }
    return readVIntSlow();
  }
  uint64_t getVarint64(bool zigzag) {
    if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
      auto r = internal::decodeVLongUnchecked(pos_, zigzag);
      pos_ = r.next;
      return r.value;
    }
    return readVarint64Slow(zigzag);
  }

  uint8_t readByteSlow();
  void readBytesSlow(uint8_t* out, size_t n);
  uint64_t readFixedSlow(int width);
  int32_t readVIntSlow();
  uint64_t readVarint64Slow(bool zigzag);
  uint32_t readStringUnit();
  template <typename T>
  std::vector<T> readSplit(void (*decode)(const uint8_t*, size_t, T*));
  void ensureAvailable(size_t n);
  // readInChunk / readByteIf over [pos, end), for the stream and its Cursor.
  static const uint8_t* takeInChunk(const uint8_t*& pos, const uint8_t* end, size_t n) {
    if (static_cast<size_t>(end - pos) < n) return nullptr;
    const uint8_t* p = pos;
    pos += n;
    return p;
  }
  static bool takeByteIf(const uint8_t*& pos, const uint8_t* end, uint8_t expected) {
    if (pos != end && *pos == expected) [[likely]] {
      ++pos;
      return true;
    }
    return false;
  }
  // readArraySize's checks: a size within maxArraySize() whose elements fit
  // in [pos, end) passes inline; checkArraySize() makes the full checks
  // (throwing as readArraySize documents) and returns `size`.
  bool arraySizeFitsChunk(int32_t size, size_t min_bytes_each, const uint8_t* pos,
                          const uint8_t* end) const {
    return size >= 0 && size <= max_array_size_ &&
           static_cast<size_t>(size) * min_bytes_each <= static_cast<size_t>(end - pos);
  }
  int32_t checkArraySize(int32_t size, size_t min_bytes_each);

  void enterNesting() {
    if (nesting_depth_ >= max_nesting_depth_) [[unlikely]]
      throwTooDeep();
    ++nesting_depth_;
  }
  [[noreturn, gnu::cold]] void throwTooDeep() const;
  [[noreturn, gnu::cold]] static void throwDuplicateKey(int32_t index);

  TransportVersion version_ = TransportVersion::current();
  int32_t max_array_size_ = std::numeric_limits<int32_t>::max();
  int32_t max_nesting_depth_ = kDefaultMaxNestingDepth;
  int32_t nesting_depth_ = 0;
  const NamedWriteableRegistry* registry_ = nullptr;
};

// A StreamInput over memory it does not own; the memory must outlive it.
class ByteArrayStreamInput final : public StreamInput {
 public:
  explicit ByteArrayStreamInput(std::span<const uint8_t> bytes);

  // Bytes consumed so far.
  size_t position() const { return static_cast<size_t>(pos_ - begin_); }
  // Moves to an absolute offset within the input (std::out_of_range if past it).
  void seek(size_t position);

 protected:
  bool nextChunk() override { return false; }
  size_t availableAfterChunk() const override { return 0; }

 private:
  const uint8_t* begin_;
};

}  // namespace wirestream
