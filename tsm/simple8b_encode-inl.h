// simple8b's encoder (see simple8b.cc for the selector choice) over two
// operations a caller supplies: or_of(v, from, to), the OR of v[from..to), and
// pack_word(s, v, left), the word of selector s >= 2 holding v[0..kCount[s])
// with `left` values readable at v. No include guard: simple8b.cc includes it
// for the scalar loops and tsm_kernels.cc once per Highway target, each inside
// its own namespace.
//
// Needs <algorithm>, <bit>, tsm/simple8b_tables.h and codec/byte_order.h.

template <typename OrOf, typename Pack>
inline size_t EncodeWords(const uint64_t* values, size_t n, uint8_t* dst, OrOf or_of,
                          Pack pack_word) {
  using namespace ::wirestream::tsm::simple8b::detail;  // NOLINT(build/namespaces)
  uint8_t* p = dst;
  size_t i = 0;
  int guess = 0;  // the selector of the last word (0: none yet)
  while (i < n) {
    const size_t left = n - i;
    const uint64_t* v = values + i;
    if (left >= 120) {
      const size_t limit = left >= 240 ? 240 : 120;
      size_t ones = 0;
      while (ones < limit && v[ones] == 1) ++ones;
      if (ones == 240) {
        ::wirestream::codec::storeBig64(p, 0);
        p += 8;
        i += 240;
        continue;
      }
      if (ones >= 120) {
        ::wirestream::codec::storeBig64(p, uint64_t{1} << 60);
        p += 8;
        i += 120;
        continue;
      }
    }
    // Selector s holds the next values iff the first kCount[s] of them fit in
    // kBits[s]; the lowest such s >= 2 taking at most `left` values is the
    // choice, and both tests are monotone in s. Blocks tend to keep one
    // selector: the previous word's is the choice if it holds the values and
    // the one below does not; if it does not hold them, the search starts
    // above it.
    int s = kSelectorForLeft[std::min<size_t>(left, 60)];
    if (guess >= s) {
      const uint64_t fit = or_of(v, 0, kCount[guess]);
      if (fit <= kLargest[guess]) {
        if (guess == s ||
            (fit | or_of(v, kCount[guess], kCount[guess - 1])) > kLargest[guess - 1]) {
          ::wirestream::codec::storeBig64(p, pack_word(guess, v, left));
          p += 8;
          i += kCount[guess];
          continue;
        }
      } else if (guess < 15) {
        s = guess + 1;
      }
    }
    // Values before k fit in kBits[s]; `seen` is their OR, so it exceeds
    // kLargest[s] exactly when v[k] does not fit.
    uint64_t seen = 0;
    for (size_t k = 0; k < kCount[s];) {
      seen |= v[k];
      if (seen <= kLargest[s]) {
        ++k;
        continue;
      }
      if (v[k] > ::wirestream::tsm::simple8b::kMaxValue) throwTooLarge(v[k]);
      // v[k] breaks s: the next selector either stops before v[k] (and fits)
      // or is wide enough for it; both tests are monotone in s.
      s = std::min<int>(kSelectorForCount[k], kSelectorForWidth[64 - std::countl_zero(seen)]);
    }
    ::wirestream::codec::storeBig64(p, pack_word(s, v, left));
    p += 8;
    i += kCount[s];
    guess = s;
  }
  return p - dst;
}
