// StreamOutput: the writer side of the wire format (docs/wire-format.md).
//
// Example (runs: stream_output):
//   #include "stream/bytes_stream_output.h"
//   BytesStreamOutput out;
//   out.writeVInt(300);            // AC 02
//   out.writeString("hello");      // 05 68 65 6C 6C 6F
//   BytesReference bytes = out.bytes();
//
// A StreamOutput writes into a buffer [pos_, end_) that a subclass provides.
// Every write is inline while the value fits in that buffer (one comparison);
// only when it does not does the write call out of line, and only that path
// reaches the subclass through the single virtual nextBuffer(). Multi-byte
// writes on the slow path are all-or-nothing: ensureCapacity() is asked first.
//
// Method names are Elasticsearch's so a reader can cross-reference them.
// Not thread-safe: one writer at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "codec/byte_order.h"
#include "stream/errors.h"
#include "stream/transport_version.h"
#include "stream/typed_writes.h"
#include "stream/varint.h"
#include "stream/writeable.h"

namespace wirestream {

class BytesReference;
class GenericValue;
class StreamOutput;
// stream/structured/structured_stream.h (for the deprecated member below).
void writeGenericValue(StreamOutput& out, const GenericValue& value);

class StreamOutput : public TypedWrites<StreamOutput> {
 public:
  StreamOutput() = default;
  StreamOutput(const StreamOutput&) = delete;
  StreamOutput& operator=(const StreamOutput&) = delete;
  virtual ~StreamOutput() = default;

  TransportVersion transportVersion() const { return version_; }
  void setTransportVersion(TransportVersion version) { version_ = version; }

  // Pushes buffered bytes to the destination, for outputs that have one.
  virtual void flush() {}

  // ---- primitives (wire format §1) ----

  void writeByte(uint8_t b) {
    if (pos_ == end_) [[unlikely]]
      nextBuffer();
    *pos_++ = b;
  }

  void writeBytes(std::span<const uint8_t> bytes) {
    if (static_cast<size_t>(end_ - pos_) >= bytes.size()) [[likely]] {
      copyBytes(pos_, bytes.data(), bytes.size());
      pos_ += bytes.size();
    } else {
      writeBytesSlow(bytes.data(), bytes.size());
    }
  }

  // writeBoolean, writeShort, writeInt, writeLong, writeFloat, writeDouble,
  // writeVInt, writeVLong, writeVLongNoCheck, writeZLong and writeArraySize are
  // TypedWrites' (stream/typed_writes.h), over putBig / putVarint32 / putVarint64
  // below: one comparison a value while it fits in the buffer.

  // As codec::canonicalDoubleBits (kept for callers of this name).
  static uint64_t canonicalDoubleBits(double v) { return codec::canonicalDoubleBits(v); }

  void writeOptionalBoolean(std::optional<bool> v) { writeByte(v.has_value() ? (*v ? 1 : 0) : 2); }

  void writeOptionalVInt(std::optional<int32_t> v);
  void writeOptionalVLong(std::optional<int64_t> v);
  void writeOptionalInt(std::optional<int32_t> v);
  void writeOptionalLong(std::optional<int64_t> v);
  void writeOptionalFloat(std::optional<float> v);
  void writeOptionalDouble(std::optional<double> v);

  // ---- strings and bytes (wire format §2) ----

  // UTF-16 unit count, then each unit on its own. Invalid UTF-8 in `s` is a
  // caller error: std::invalid_argument, and nothing is written.
  void writeString(std::string_view s);
  void writeOptionalString(std::optional<std::string_view> s);

  // VInt length, then the bytes.
  void writeByteArray(std::span<const uint8_t> bytes) {
    writeArraySize(bytes.size());
    writeBytes(bytes);
  }
  void writeBytesRef(std::span<const uint8_t> bytes) { writeByteArray(bytes); }

  // ---- arrays: VInt count, then the elements ----
  // writeVIntArray / writeVLongArray encode the part of the array that surely
  // fits in the current buffer with the SIMD batch kernels (//simd), the same
  // bytes as writeVInt / writeVLong one by one.
  void writeStringArray(std::span<const std::string> values);
  void writeStringArray(std::span<const std::string_view> values);
  void writeVIntArray(std::span<const int32_t> values);
  void writeVLongArray(std::span<const int64_t> values);
  void writeIntArray(std::span<const int32_t> values);
  void writeLongArray(std::span<const int64_t> values);
  void writeFloatArray(std::span<const float> values);
  void writeDoubleArray(std::span<const double> values);

  // wirestream extension, not an Elasticsearch format: VInt count, then the
  // values' big-endian IEEE bits (NaN canonical, as writeFloat/writeDouble) in
  // ByteStreamSplit layout: byte k of every value in stream k, streams in
  // order (4 for float, 8 for double). Read back with readFloatArraySplit /
  // readDoubleArraySplit; compresses better than writeFloatArray when values
  // share exponents.
  void writeFloatArraySplit(std::span<const float> values);
  void writeDoubleArraySplit(std::span<const double> values);

  // ---- bytes references, writeables, collections, maps (wire format §2) ----
  // The ES value types (generic values, time values, instants, enums) have
  // free writers in stream/structured/structured_stream.h (//stream/structured).

  // VInt length + bytes (empty -> 00).
  void writeBytesReference(const BytesReference& ref);
  // absent -> 00, else VInt (length + 1) + bytes.
  void writeOptionalBytesReference(const std::optional<BytesReference>& ref);

  // writeString(getWriteableName()), then the body.
  void writeNamedWriteable(const NamedWriteable& value);
  // Presence boolean, then the named writeable; nullptr is absent.
  void writeOptionalNamedWriteable(const NamedWriteable* value);

  // Presence boolean, then writeTo(); nullptr / nullopt is absent.
  void writeOptionalWriteable(const Writeable* value) {
    writeBoolean(value != nullptr);
    if (value != nullptr) value->writeTo(*this);
  }
  template <std::derived_from<Writeable> T>
  void writeOptionalWriteable(const std::optional<T>& value) {
    writeOptionalWriteable(value ? &*value : nullptr);
  }

  // VInt count, then write_one(*this, element) for each element in order.
  template <std::ranges::sized_range Range, typename F>
  requires std::invocable<F&, StreamOutput&, std::ranges::range_reference_t<const Range>>
  void writeCollection(const Range& values, F&& write_one) {
    writeArraySize(std::ranges::size(values));
    for (const auto& v : values) write_one(*this, v);
  }
  // VInt count, then each Writeable's writeTo() (elements may be Writeables
  // or pointers / smart pointers to them; a null element is a caller error).
  template <std::ranges::sized_range Range>
  void writeCollection(const Range& values) {
    writeCollection(values, [](StreamOutput& out, const auto& v) { out.writeWriteableElement(v); });
  }
  // VInt count, then writeNamedWriteable() for each element.
  template <std::ranges::sized_range Range>
  void writeNamedWriteableCollection(const Range& values) {
    writeCollection(values, [](StreamOutput& out, const auto& v) {
      out.writeNamedWriteable(derefWriteable(v));
    });
  }

  // VInt size, then key_writer(*this, key), value_writer(*this, value) for
  // each entry in iteration order.
  template <typename Map, typename KW, typename VW>
  void writeMap(const Map& map, KW&& key_writer, VW&& value_writer) {
    writeArraySize(std::ranges::size(map));
    for (const auto& [k, v] : map) {
      key_writer(*this, k);
      value_writer(*this, v);
    }
  }

  // ---- end of bytes references, writeables, collections, maps ----

  // Bytes past its start any one Reserved write may store (the 8-byte store
  // of a padded VInt, a 10-byte VLong): a run keeps this much room at its end.
  static constexpr size_t kReservedSlop = 16;

  static_assert(kReservedSlop >= kVIntPaddedStoreBytes && kReservedSlop >= kMaxVLongBytes);

  class Cursor;

  // The writer inside a Cursor::writeEach run: the room is already checked,
  // so every write is unchecked and straight-line. Stores at most
  // kReservedSlop bytes at the position per write and advances by at most
  // the value's wire size. Only Cursor's writeEach, writeWithin and
  // writeReserved make one.
  class Reserved : public TypedWrites<Reserved> {
   public:
    void writeByte(uint8_t b) { *pos_++ = b; }
    // Counts fully against the run's max_bytes.
    void writeBytes(std::span<const uint8_t> bytes) {
      copyBytes(pos_, bytes.data(), bytes.size());
      pos_ += bytes.size();
    }
    // n <= kReservedSlop bytes from src, where kReservedSlop bytes are
    // readable: one fixed-size copy of kReservedSlop bytes, no size switch.
    // Counts n against the run's max_bytes.
    void writeBytesPadded(const uint8_t* src, size_t n) {
      assert(n <= kReservedSlop);
      std::memcpy(pos_, src, kReservedSlop);
      pos_ += n;
    }

   private:
    friend class Cursor;
    friend class TypedWrites<Reserved>;
    explicit Reserved(uint8_t* pos) : pos_(pos) {}

    template <class U>
    void putBig(U v) {
      codec::storeBig(pos_, v);
      pos_ += sizeof(U);
    }
    void putVarint32(uint32_t u) {
      if (u < 0x80) [[likely]] {
        *pos_++ = static_cast<uint8_t>(u);
      } else if (u < 0x4000) {
        // Two bytes: most of what is not one byte in counts and sizes.
        pos_[0] = static_cast<uint8_t>(u | 0x80);
        pos_[1] = static_cast<uint8_t>(u >> 7);
        pos_ += 2;
      } else {
        pos_ = u >= (1u << 28) ? encodeVInt(pos_, u) : encodeVIntPadded(pos_, u);
      }
    }
    void putVarint64(uint64_t u) { pos_ = encodeVarint64(pos_, u); }

    uint8_t* pos_;
  };

  // A scoped direct-write cursor over the current buffer, for inner loops
  // that write many small values. It keeps the write position in a local,
  // which the compiler holds in a register: StreamOutput's own writers store
  // pos_ back to the object after every value, because a byte store may
  // alias it (protobuf's generated code passes `ptr` through its
  // EpsCopyOutputStream for the same reason). Same bytes as the writers of
  // the same names; the page-crossing paths are StreamOutput's.
  //
  // Example (runs: stream_output_cursor):
  //   #include "stream/bytes_stream_output.h"
  //   struct Bucket {
  //     std::vector<uint8_t> key;
  //     int64_t doc_count;
  //   };
  //   std::vector<Bucket> buckets = {{{'a'}, 3}, {{'b', 'c'}, 1}};
  //   BytesStreamOutput out;
  //   {
  //     StreamOutput::Cursor c(out);
  //     for (const Bucket& b : buckets) {
  //       c.writeVLong(b.doc_count);
  //       c.writeVInt(static_cast<int32_t>(b.key.size()));
  //       c.writeBytes(b.key);
  //     }
  //   }  // the position goes back to `out` here
  //
  // While a Cursor is live, write only through it (withStream() lends the
  // StreamOutput for a nested write and resumes after it). One per output.
  class Cursor : public TypedWrites<Cursor> {
   public:
    explicit Cursor(StreamOutput& out) : out_(out), pos_(out.pos_), end_(out.end_) {}
    ~Cursor() {
      if (pos_ != nullptr) out_.pos_ = pos_;
    }
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;

    void writeByte(uint8_t b) {
      if (pos_ == end_) [[unlikely]]
        slow([](StreamOutput& out) { out.nextBuffer(); });
      *pos_++ = b;
    }
    void writeBytes(std::span<const uint8_t> bytes) {
      if (static_cast<size_t>(end_ - pos_) >= bytes.size()) [[likely]] {
        copyBytes(pos_, bytes.data(), bytes.size());
        pos_ += bytes.size();
      } else {
        slow([bytes](StreamOutput& out) { out.writeBytesSlow(bytes.data(), bytes.size()); });
      }
    }

    // Hands the StreamOutput to write(out) for what the cursor does not
    // write itself (a nested aggregation, a string), then resumes after it.
    template <typename F>
    void withStream(F&& write) {
      slow(write);
    }

    // write(w) once, where write writes at most `max_bytes` bytes: with `w`
    // a Reserved writer (no bounds checks) when they surely fit in the
    // buffer, else with `w` this Cursor. As writeEach, for one value of a
    // size known only at the time (a bucket with its key).
    template <typename F>
    void writeWithin(size_t max_bytes, F&& write) {
      if (static_cast<size_t>(end_ - pos_) >= max_bytes + kReservedSlop) [[likely]] {
        Reserved w(pos_);
        write(w);
        assert(w.pos_ <= end_);
        pos_ = w.pos_;
      } else {
        write(*this);
      }
    }

    // Bytes a writeReserved may write now: the buffer's room less the slop.
    size_t reservable() const {
      size_t room = static_cast<size_t>(end_ - pos_);
      return room >= kReservedSlop ? room - kReservedSlop : 0;
    }

    // write(w) with `w` a Reserved writer, where write writes at most
    // max_bytes <= reservable() bytes (the caller checked; asserted in debug
    // builds): for a run whose total size the caller sums itself (a run of
    // buckets with their keys), checked once for the run.
    template <typename F>
    void writeReserved(size_t max_bytes, F&& write) {
      assert(max_bytes <= reservable());
      Reserved w(pos_);
      write(w);
      assert(w.pos_ <= pos_ + max_bytes);
      pos_ = w.pos_;
    }

    // write_one(w, value) for each value in order, where each call writes at
    // most `max_bytes` bytes (kMaxVIntBytes for one writeVInt). The room for a
    // run of values is checked once, so inside the run `w` is a Reserved
    // writer that checks nothing per value and keeps its position in a
    // register (protobuf's WriteVarint32ToArray form); where a run no longer
    // fits in the buffer, `w` is this Cursor. write_one must therefore take
    // `auto&` and use only writers both have (Reserved's list), and must not
    // write more than max_bytes (checked in debug builds). Same bytes as
    // the writers one by one.
    //
    // Example (runs: stream_output_write_each):
    //   #include "stream/bytes_stream_output.h"
    //   std::vector<int32_t> values = {3, 300, 7};
    //   BytesStreamOutput out;
    //   StreamOutput::Cursor c(out);
    //   c.writeEach(values, kMaxVIntBytes, [](auto& w, int32_t v) { w.writeVInt(v); });
    template <std::ranges::input_range Range, typename F>
    void writeEach(const Range& values, size_t max_bytes, F&& write_one) {
      assert(max_bytes > 0);
      auto it = std::ranges::begin(values);
      const auto last = std::ranges::end(values);
      while (it != last) {
        // Values that surely fit: n values advance at most n * max_bytes,
        // and no store reaches more than kReservedSlop past the position.
        size_t room = static_cast<size_t>(end_ - pos_);
        size_t n = room >= kReservedSlop ? (room - kReservedSlop) / max_bytes : 0;
        if (n == 0) {
          write_one(*this, *it);
          ++it;
          continue;
        }
        Reserved w(pos_);
        if constexpr (std::ranges::sized_range<Range> &&
                      std::random_access_iterator<decltype(it)>) {
          // A counted run: the loop's only compare is the run's end, once
          // every four values (the loads take fixed offsets from `it`).
          auto count = static_cast<std::ptrdiff_t>(std::min(n, static_cast<size_t>(last - it)));
          auto stop = it + count;
          for (auto fours = it + (count & ~std::ptrdiff_t{3}); it != fours; it += 4) {
            write_one(w, it[0]);
            write_one(w, it[1]);
            write_one(w, it[2]);
            write_one(w, it[3]);
          }
          for (; it != stop; ++it) write_one(w, *it);
        } else {
          for (; n > 0 && it != last; --n, ++it) write_one(w, *it);
        }
        assert(w.pos_ <= end_);
        pos_ = w.pos_;
      }
    }

   private:
    friend class TypedWrites<Cursor>;

    template <class U>
    void putBig(U v) {
      if (end_ - pos_ >= static_cast<std::ptrdiff_t>(sizeof(U))) [[likely]] {
        codec::storeBig(pos_, v);
        pos_ += sizeof(U);
      } else {
        slow([v](StreamOutput& out) { out.writeFixedSlow(v, sizeof(U)); });
      }
    }
    // As StreamOutput's.
    void putVarint32(uint32_t u) {
      if (!tryWriteVInt(pos_, end_, u)) [[unlikely]]
        slow([u](StreamOutput& out) { out.writeVIntSlow(u); });
    }
    void putVarint64(uint64_t u) {
      if (u < 0x80 && pos_ != end_) [[likely]] {
        *pos_++ = static_cast<uint8_t>(u);
      } else if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
        pos_ = encodeVarint64(pos_, u);
      } else {
        slow([u](StreamOutput& out) { out.writeVarint64Slow(u); });
      }
    }

    // The position goes back to the stream around the out-of-line call and
    // is reloaded after it; the cursor's own address never escapes, so its
    // fields stay in registers on the inline paths. While lent, pos_ is
    // null, so that a call that throws leaves the stream's own position.
    template <typename F>
    void slow(F&& f) {
      out_.pos_ = pos_;
      pos_ = nullptr;
      f(out_);
      pos_ = out_.pos_;
      end_ = out_.end_;
    }

    StreamOutput& out_;
    uint8_t* pos_;
    uint8_t* end_;
  };

  // Deprecated (0.2.0): the member became the free writeGenericValue(out, v)
  // of stream/structured/structured_stream.h; this forwards to it (include
  // that header, or the forwarding stream/generic_value.h, where it is
  // called). A template only so that the value type is needed there.
  template <typename Value = GenericValue>
  [[deprecated(
      "use writeGenericValue(out, value) from stream/structured/structured_stream.h")]] void
  writeGenericValue(const Value& value) {
    ::wirestream::writeGenericValue(*this, value);
  }

 protected:
  // The buffer the inline writes fill. A subclass sets it in nextBuffer().
  // Inline writes may store up to 8 bytes at pos_ when end_ - pos_ >= 8,
  // even for a shorter value: the bytes of [pos_, end_) past what was
  // written are unspecified, so they must hold nothing to keep.
  uint8_t* pos_ = nullptr;
  uint8_t* end_ = nullptr;

  // Called when pos_ == end_ and at least one more byte is to be written:
  // make [pos_, end_) a fresh, non-empty buffer (take a page, flush a block)
  // or throw LimitExceededError if the output is full.
  virtual void nextBuffer() = 0;

  // Called by the slow paths before a write of n bytes that crosses buffers,
  // so that an output with a size limit can refuse the whole write up front.
  virtual void ensureCapacity(size_t n) {}

 private:
  // writeVInt's inline part over [pos, end), for the stream and its Cursor:
  // false, with nothing written, when the value may not fit.
  static bool tryWriteVInt(uint8_t*& pos, uint8_t* end, uint32_t u) {
    if (u < 0x80 && pos != end) [[likely]] {
      *pos++ = static_cast<uint8_t>(u);
      return true;
    }
    if (end - pos >= kVIntPaddedStoreBytes) [[likely]] {
      pos = u >= (1u << 28) ? encodeVInt(pos, u) : encodeVIntPadded(pos, u);
      return true;
    }
    return false;
  }

  friend class TypedWrites<StreamOutput>;

  template <class U>
  void putBig(U v) {
    if (end_ - pos_ >= static_cast<std::ptrdiff_t>(sizeof(U))) [[likely]] {
      codec::storeBig(pos_, v);
      pos_ += sizeof(U);
    } else {
      writeFixedSlow(v, sizeof(U));
    }
  }
  // One-byte values and five-byte values (every negative) each have a
  // branch of their own, predictable when a stream is mostly one kind; widths
  // 2 to 4 are assembled without branching on the width (encodeVIntPadded),
  // so mixed widths cost no mispredictions. That path stores 8 bytes at pos_
  // (see nextBuffer()).
  void putVarint32(uint32_t u) {
    if (!tryWriteVInt(pos_, end_, u)) [[unlikely]]
      writeVIntSlow(u);
  }
  void putVarint64(uint64_t u) {
    if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
      pos_ = encodeVarint64(pos_, u);
    } else {
      writeVarint64Slow(u);
    }
  }

  // memcpy, with copies of up to 16 bytes (keys, short strings) done inline
  // as two overlapping loads and stores: a call into libc costs more than
  // such a copy.
  static void copyBytes(uint8_t* dst, const uint8_t* src, size_t n) {
    if (n > 16) {
      std::memcpy(dst, src, n);
    } else if (n >= 8) {
      uint64_t head, tail;
      std::memcpy(&head, src, 8);
      std::memcpy(&tail, src + n - 8, 8);
      std::memcpy(dst, &head, 8);
      std::memcpy(dst + n - 8, &tail, 8);
    } else if (n >= 4) {
      uint32_t head, tail;
      std::memcpy(&head, src, 4);
      std::memcpy(&tail, src + n - 4, 4);
      std::memcpy(dst, &head, 4);
      std::memcpy(dst + n - 4, &tail, 4);
    } else if (n > 0) {
      uint8_t first = src[0], middle = src[n / 2], last = src[n - 1];
      dst[0] = first;
      dst[n / 2] = middle;
      dst[n - 1] = last;
    }
  }
  [[noreturn, gnu::cold]] static void throwNullElement();

  template <typename T>
  static const auto& derefWriteable(const T& v) {
    if constexpr (std::derived_from<T, Writeable>) {
      return v;
    } else {
      if (v == nullptr) throwNullElement();
      return *v;
    }
  }
  template <typename T>
  void writeWriteableElement(const T& v) {
    derefWriteable(v).writeTo(*this);
  }
  void writeBytesSlow(const uint8_t* data, size_t n);
  void writeFixedSlow(uint64_t v, int width);
  void writeVIntSlow(uint32_t v);
  void writeVarint64Slow(uint64_t v);
  template <typename T>
  void writeSplit(std::span<const T> values, void (*encode)(const T*, size_t, uint8_t*));

  TransportVersion version_ = TransportVersion::current();
};

}  // namespace wirestream
