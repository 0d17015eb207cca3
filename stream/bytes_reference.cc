#include "stream/bytes_reference.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace wirestream {

BytesReference::BytesReference(Piece bytes, std::shared_ptr<const void> owner)
    : owner_(std::move(owner)) {
  if (!bytes.empty()) {
    pieces_.push_back(bytes);
    starts_.push_back(0);
    length_ = bytes.size();
  }
}

BytesReference::BytesReference(const std::vector<Piece>& pieces, std::shared_ptr<const void> owner)
    : owner_(std::move(owner)) {
  pieces_.reserve(pieces.size());
  starts_.reserve(pieces.size());
  for (Piece p : pieces) {
    if (p.empty()) continue;
    pieces_.push_back(p);
    starts_.push_back(length_);
    length_ += p.size();
  }
}

BytesReference BytesReference::copyOf(std::span<const uint8_t> bytes) {
  auto storage = std::make_shared<std::vector<uint8_t>>(bytes.begin(), bytes.end());
  Piece piece(storage->data(), storage->size());
  return BytesReference(piece, std::move(storage));
}

size_t BytesReference::pieceIndex(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<size_t>(it - starts_.begin()) - 1;
}

uint8_t BytesReference::operator[](size_t index) const {
  if (index >= length_) {
    throw std::out_of_range("index " + std::to_string(index) +
                            " out of a BytesReference of length " + std::to_string(length_));
  }
  size_t i = pieceIndex(index);
  return pieces_[i][index - starts_[i]];
}

BytesReference BytesReference::slice(size_t offset, size_t length) const {
  if (offset > length_ || length > length_ - offset) {
    throw std::out_of_range("slice [" + std::to_string(offset) + ", +" + std::to_string(length) +
                            ") out of a BytesReference of length " + std::to_string(length_));
  }
  std::vector<Piece> out;
  if (length > 0) {
    for (size_t i = pieceIndex(offset); length > 0; ++i) {
      size_t from = offset > starts_[i] ? offset - starts_[i] : 0;
      size_t take = std::min(length, pieces_[i].size() - from);
      out.push_back(pieces_[i].subspan(from, take));
      length -= take;
    }
  }
  return BytesReference(out, owner_);
}

std::vector<uint8_t> BytesReference::toVector() const {
  std::vector<uint8_t> out(length_);
  size_t at = 0;
  for (Piece p : pieces_) {
    std::memcpy(out.data() + at, p.data(), p.size());
    at += p.size();
  }
  return out;
}

std::string BytesReference::toHex() const {
  std::string out;
  out.reserve(length_ * 3);
  char buf[4];
  for (Piece p : pieces_) {
    for (uint8_t b : p) {
      std::snprintf(buf, sizeof buf, "%02x ", b);
      out += buf;
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

bool operator==(const BytesReference& a, const BytesReference& b) {
  if (a.length_ != b.length_) return false;
  // Walk both piece lists together, comparing the overlapping runs.
  size_t ia = 0, ib = 0, oa = 0, ob = 0;
  while (ia < a.pieces_.size() && ib < b.pieces_.size()) {
    auto pa = a.pieces_[ia].subspan(oa);
    auto pb = b.pieces_[ib].subspan(ob);
    size_t n = std::min(pa.size(), pb.size());
    if (std::memcmp(pa.data(), pb.data(), n) != 0) return false;
    oa += n;
    ob += n;
    if (oa == a.pieces_[ia].size()) ++ia, oa = 0;
    if (ob == b.pieces_[ib].size()) ++ib, ob = 0;
  }
  return true;
}

BytesReferenceStreamInput::BytesReferenceStreamInput(const BytesReference& ref)
    : ref_(ref), after_(ref.length()) {
  nextChunk();
}

bool BytesReferenceStreamInput::nextChunk() {
  if (next_piece_ >= ref_.pieces().size()) return false;
  auto piece = ref_.pieces()[next_piece_++];
  pos_ = piece.data();
  end_ = piece.data() + piece.size();
  after_ -= piece.size();
  return true;
}

}  // namespace wirestream
