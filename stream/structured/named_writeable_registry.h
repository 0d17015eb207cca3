// NamedWriteableRegistry: which reader builds which NamedWriteable, by
// category (the C++ type a caller asks for) and writeable name.
//
// Example (runs: named_writeable_registry):
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   struct Format : NamedWriteable {};  // a category: the type a caller asks for
//   struct RawFormat final : Format {
//     RawFormat() = default;
//     explicit RawFormat(StreamInput&) {}  // reads its body (none)
//     std::string_view getWriteableName() const override { return "raw"; }
//     void writeTo(StreamOutput&) const override {}
//   };
//   NamedWriteableRegistry registry;
//   registry.registerReader<Format>("raw", [](StreamInput& in) {
//     return std::make_unique<RawFormat>(in);  // any std::unique_ptr<D>, D derived from C
//   });
//   BytesStreamOutput out;
//   out.writeNamedWriteable(RawFormat());  // 03 72 61 77: the name, then the body
//   BytesReferenceStreamInput in(out.bytes());
//   in.setNamedWriteableRegistry(&registry);
//   std::unique_ptr<Format> f = readNamedWriteable<Format>(in);
//
// On the wire a named writeable is writeString(getWriteableName()) and then
// its body (wire format §2). A name that the registry does not know for the
// category is hostile or foreign input: CorruptStreamError
// "Unknown NamedWriteable [category][name]". Registering a name twice in one
// category is a caller error (std::invalid_argument).
//
// A category is shown in messages by C::kWriteableCategory when the type has
// one (e.g. `static constexpr std::string_view kWriteableCategory =
// "InternalAggregation";`), else by its demangled C++ type name.
//
// Build the registry once, then share it: reads are const and thread-safe;
// registerReader is not. Inputs keep a plain pointer to it, so it must
// outlive every input it is set on.
#pragma once

#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <utility>

#include "stream/writeable.h"

namespace wirestream {

class StreamInput;

namespace internal {
std::string demangledTypeName(const std::type_info& type);
}  // namespace internal

// How messages name category C.
template <typename C>
std::string namedWriteableCategoryName() {
  if constexpr (requires {
                  { C::kWriteableCategory } -> std::convertible_to<std::string_view>;
                }) {
    return std::string(C::kWriteableCategory);
  } else {
    return internal::demangledTypeName(typeid(C));
  }
}

class NamedWriteableRegistry {
 public:
  using ErasedReader = std::function<std::unique_ptr<NamedWriteable>(StreamInput&)>;

  NamedWriteableRegistry() = default;

  // Registers `reader` (callable as reader(StreamInput&) returning a
  // std::unique_ptr to C or a subclass of C) under `name` in category C.
  // std::invalid_argument if the name is already registered in C.
  template <std::derived_from<NamedWriteable> C, typename F>
  // `name` is moved into add(); clang-tidy 14 misses the move.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  void registerReader(std::string name, F reader) {
    using Result = std::invoke_result_t<F&, StreamInput&>;
    static_assert(std::is_convertible_v<Result, std::unique_ptr<C>>,
                  "a reader for category C must return std::unique_ptr<C or a subclass>");
    add(std::type_index(typeid(C)), namedWriteableCategoryName<C>(), std::move(name),
        [r = std::move(reader)](StreamInput& in) -> std::unique_ptr<NamedWriteable> {
          std::unique_ptr<C> value = r(in);
          return value;
        });
  }

  template <typename C>
  bool contains(std::string_view name) const {
    return find(std::type_index(typeid(C)), name) != nullptr;
  }

  // The reader for (C, name), or CorruptStreamError
  // "Unknown NamedWriteable [category][name]".
  template <typename C>
  const ErasedReader& getReader(std::string_view name) const {
    const ErasedReader* r = find(std::type_index(typeid(C)), name);
    if (r == nullptr) throwUnknown(namedWriteableCategoryName<C>(), name);
    return *r;
  }

 private:
  struct Category {
    std::string name;
    std::map<std::string, ErasedReader, std::less<>> readers;
  };

  void add(std::type_index category, std::string category_name, std::string name,
           ErasedReader reader);
  const ErasedReader* find(std::type_index category, std::string_view name) const;
  [[noreturn, gnu::cold]] static void throwUnknown(const std::string& category,
                                                   std::string_view name);

  std::unordered_map<std::type_index, Category> categories_;
};

}  // namespace wirestream
