// The readers and writers of Elasticsearch's value types over the raw
// StreamOutput / StreamInput (docs/wire-format.md §2, §3): generic values,
// time values, instants, enums and named writeables read through a registry.
// They are free functions so that the stream core (//stream:core) knows none
// of these types; the names are ES's StreamOutput / StreamInput methods.
//
// Example (runs: structured_stream):
//   #include "stream/bytes_stream_output.h"
//   BytesStreamOutput out;
//   writeTimeValue(out, TimeValue(100, TimeUnit::kDays));    // C8 01 06
//   writeEnum(out, TimeUnit::kSeconds);                      // 03
//   writeGenericValue(out, GenericValue::ofLong(7));         // 05 00 00 00 00 00 00 00 07
//   BytesReferenceStreamInput in(out.bytes());
//   TimeValue t = readTimeValue(in);
//   TimeUnit unit = readEnum<TimeUnit>(in);
//   GenericValue v = readGenericValue(in);
//   // Named writeables: see named_writeable_registry.h.
//
// Writers: a caller error is std::invalid_argument, and part of the value may
// already be written (discard the output). Readers: untrusted input, every
// failure a StreamError subclass (stream/errors.h); nothing is allocated
// beyond what the input justifies. Stateless; the streams are not thread-safe.
#pragma once

#include <cassert>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/instant.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/structured/time_value.h"
#include "stream/structured/wire_enum.h"
#include "stream/writeable.h"

namespace wirestream {

// ---- generic values (§3) ----

// A tag byte, then the payload. Map keys: writeString before 8.7.0 (a
// non-string key is std::invalid_argument), writeGenericValue from 8.7.0. A
// zone or offset id Java would not write, or an offset time out of range, is
// std::invalid_argument too (java_time.h).
void writeGenericValue(StreamOutput& out, const GenericValue& value);

// Unknown tag t is CorruptStreamError "Can't read unknown type [t]" (t as a
// signed byte), as are zone and offset ids and BigInteger decimals not
// spelled as Java writes them; a BigInteger above 32,768 bits is
// LimitExceededError. Nesting is bounded by in.maxNestingDepth().
[[nodiscard]] GenericValue readGenericValue(StreamInput& in);

// ---- time values and instants (§2) ----

// ZLong duration, then the unit ordinal as one byte: 100d -> C8 01 06.
void writeTimeValue(StreamOutput& out, const TimeValue& value);
void writeOptionalTimeValue(StreamOutput& out, const std::optional<TimeValue>& value);
// A unit byte > 6 is "Unknown TimeUnit ordinal [n]", a duration below -1 is
// CorruptStreamError.
[[nodiscard]] TimeValue readTimeValue(StreamInput& in);
[[nodiscard]] std::optional<TimeValue> readOptionalTimeValue(StreamInput& in);

// long epoch seconds, int nanos. std::invalid_argument if !value.valid().
void writeInstant(StreamOutput& out, const Instant& value);
void writeOptionalInstant(StreamOutput& out, const std::optional<Instant>& value);
// Outside Instant's range -> CorruptStreamError.
[[nodiscard]] Instant readInstant(StreamInput& in);
[[nodiscard]] std::optional<Instant> readOptionalInstant(StreamInput& in);

// ---- enums (§2) ----

namespace internal {
[[noreturn, gnu::cold]] void throwBadEnumValue(std::string_view enum_name, int64_t value);
[[noreturn, gnu::cold]] void throwDuplicateOrdinal(std::string_view enum_name, int64_t ordinal);
}  // namespace internal

// VInt ordinal. A value outside 0..kCount-1 is a caller error.
template <WireEnum E>
void writeEnum(StreamOutput& out, E value) {
  auto ordinal = static_cast<int64_t>(value);
  if (ordinal < 0 || ordinal >= WireEnumTraits<E>::kCount) {
    internal::throwBadEnumValue(WireEnumTraits<E>::kName, ordinal);
  }
  out.writeVInt(static_cast<int32_t>(ordinal));
}
template <WireEnum E>
void writeOptionalEnum(StreamOutput& out, std::optional<E> value) {
  out.writeBoolean(value.has_value());
  if (value) writeEnum(out, *value);
}
// VInt count, then the ordinals in ascending order (Java's EnumSet order).
template <WireEnum E>
void writeEnumSet(StreamOutput& out, const std::set<E>& values) {
  out.writeArraySize(values.size());
  for (E v : values) writeEnum(out, v);
}

// VInt ordinal; outside 0..kCount-1 -> "Unknown <Enum> ordinal [n]".
template <WireEnum E>
[[nodiscard]] E readEnum(StreamInput& in) {
  int32_t ordinal = in.readVInt();
  if (ordinal < 0 || ordinal >= WireEnumTraits<E>::kCount) {
    internal::throwUnknownOrdinal(WireEnumTraits<E>::kName, ordinal);
  }
  return static_cast<E>(ordinal);
}
template <WireEnum E>
[[nodiscard]] std::optional<E> readOptionalEnum(StreamInput& in) {
  if (!in.readBoolean()) return std::nullopt;
  return readEnum<E>(in);
}
// VInt count + ordinals; a repeated ordinal is CorruptStreamError.
template <WireEnum E>
[[nodiscard]] std::set<E> readEnumSet(StreamInput& in) {
  int32_t n = in.readArraySize();
  std::set<E> out;
  for (int32_t i = 0; i < n; ++i) {
    E v = readEnum<E>(in);
    if (!out.insert(v).second) {
      internal::throwDuplicateOrdinal(WireEnumTraits<E>::kName, static_cast<int64_t>(v));
    }
  }
  return out;
}

// ---- named writeables read through a registry (§2) ----
// Writing needs no registry: StreamOutput::writeNamedWriteable.

namespace internal {
// in's registry, or std::invalid_argument naming the category (whose name is
// only computed then: demangling is not cheap).
const NamedWriteableRegistry& requireRegistry(const StreamInput& in,
                                              std::string (*category_name)());
}  // namespace internal

// writeString(name) + body, read by the reader `registry` has for (C, name),
// inside a NestingScope.
template <std::derived_from<NamedWriteable> C>
[[nodiscard]] std::unique_ptr<C> readNamedWriteable(StreamInput& in,
                                                    const NamedWriteableRegistry& registry) {
  std::string name = in.readString();
  const auto& reader = registry.getReader<C>(name);
  StreamInput::NestingScope scope(in);
  std::unique_ptr<NamedWriteable> value = reader(in);
  assert(value != nullptr && value->getWriteableName() == name);
  return std::unique_ptr<C>(static_cast<C*>(value.release()));
}
// The same through in.namedWriteableRegistry(). Without a registry on `in`:
// std::invalid_argument (a setup mistake, not bad input), nothing consumed.
template <std::derived_from<NamedWriteable> C>
[[nodiscard]] std::unique_ptr<C> readNamedWriteable(StreamInput& in) {
  return readNamedWriteable<C>(in, internal::requireRegistry(in, &namedWriteableCategoryName<C>));
}
template <std::derived_from<NamedWriteable> C>
[[nodiscard]] std::unique_ptr<C> readOptionalNamedWriteable(StreamInput& in) {
  if (!in.readBoolean()) return nullptr;
  return readNamedWriteable<C>(in);
}
// VInt count, then that many named writeables of category C.
template <std::derived_from<NamedWriteable> C>
[[nodiscard]] std::vector<std::unique_ptr<C>> readNamedWriteableCollection(StreamInput& in) {
  const NamedWriteableRegistry& registry =
      internal::requireRegistry(in, &namedWriteableCategoryName<C>);
  return in.readCollection(
      [&registry](StreamInput& i) { return readNamedWriteable<C>(i, registry); });
}

}  // namespace wirestream
