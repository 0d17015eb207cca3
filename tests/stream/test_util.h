// Helpers shared by the stream tests: run a writer at every page size, read
// back through every kind of input, and walk every strict prefix.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"

namespace wirestream::testing {

// Page sizes that put a page boundary inside every encoding (style.md).
inline const std::vector<size_t> kPageSizes = {1, 2, 3, 5, 7, 13, 32, 1024, 16384};

using Writer = std::function<void(StreamOutput&)>;
using Reader = std::function<void(StreamInput&)>;

inline std::vector<uint8_t> hexBytes(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    i += 2;
  }
  return out;
}

inline std::string toHex(const std::vector<uint8_t>& bytes) {
  return BytesReference::copyOf(bytes).toHex();
}

// Bytes of `write` at page size `page_size`.
inline std::vector<uint8_t> writeAt(size_t page_size, const Writer& write,
                                    TransportVersion version = TransportVersion::current()) {
  PageRecycler recycler(page_size);
  BytesStreamOutput out(recycler);
  out.setTransportVersion(version);
  write(out);
  return out.bytes().toVector();
}

// The same bytes split into pieces of `piece_size`, as a paged output has them.
inline BytesReference paged(const std::vector<uint8_t>& bytes, size_t piece_size) {
  std::vector<BytesReference::Piece> pieces;
  for (size_t at = 0; at < bytes.size(); at += piece_size) {
    pieces.emplace_back(bytes.data() + at, std::min(piece_size, bytes.size() - at));
  }
  return BytesReference(std::move(pieces));
}

// Runs `read` over `bytes` as one array and split at `piece_size`; checks that
// it consumes everything.
inline void readAll(const std::vector<uint8_t>& bytes, size_t piece_size, const Reader& read,
                    TransportVersion version = TransportVersion::current()) {
  {
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(version);
    read(in);
    EXPECT_EQ(in.available(), 0u) << "array input left bytes unread";
  }
  {
    BytesReference ref = paged(bytes, piece_size);
    BytesReferenceStreamInput in(ref);
    in.setTransportVersion(version);
    read(in);
    EXPECT_EQ(in.available(), 0u) << "paged input left bytes unread, piece " << piece_size;
  }
}

// Every strict prefix of `bytes` must fail with EndOfStreamError.
inline void expectEveryPrefixFails(const std::vector<uint8_t>& bytes, size_t piece_size,
                                   const Reader& read,
                                   TransportVersion version = TransportVersion::current()) {
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    BytesReference ref = paged(prefix, piece_size);
    BytesReferenceStreamInput in(ref);
    in.setTransportVersion(version);
    EXPECT_THROW(read(in), EndOfStreamError)
        << "prefix of " << n << " of " << bytes.size() << " bytes, piece " << piece_size;
  }
}

// `f` must throw a StreamError of type E (a subclass of it passes too) whose
// message contains `what`.
template <class E>
inline void expectErrorNaming(const std::function<void()>& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming: " << what;
  } catch (const StreamError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_NE(dynamic_cast<const E*>(&e), nullptr) << "wrong type: " << e.what();
  }
}

// A seed for randomized tests: WIRESTREAM_SEED if set, else fixed; printed so
// a failure can be replayed.
inline uint64_t testSeed(uint64_t fixed) {
  uint64_t seed = fixed;
  if (const char* env = std::getenv("WIRESTREAM_SEED")) seed = std::stoull(env);
  std::printf("seed = %llu (set WIRESTREAM_SEED to replay)\n",
              static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace wirestream::testing
