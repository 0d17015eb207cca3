#include "stream/structured/named_writeable_registry.h"

#include <cxxabi.h>

#include <cstdlib>
#include <stdexcept>

#include "stream/errors.h"

namespace wirestream {

namespace internal {

std::string demangledTypeName(const std::type_info& type) {
  int status = 0;
  char* name = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  if (status != 0 || name == nullptr) return type.name();
  std::string out(name);
  std::free(name);
  return out;
}

}  // namespace internal

void NamedWriteableRegistry::add(std::type_index category, std::string category_name,
                                 // Moved into the map below (try_emplace);
                                 // clang-tidy 14 misses the move.
                                 // NOLINTNEXTLINE(performance-unnecessary-value-param)
                                 std::string name, ErasedReader reader) {
  Category& c = categories_[category];
  if (c.name.empty()) c.name = std::move(category_name);
  auto [it, inserted] = c.readers.try_emplace(std::move(name), std::move(reader));
  if (!inserted) {
    throw std::invalid_argument("NamedWriteable [" + c.name + "][" + it->first +
                                "] is already registered");
  }
}

const NamedWriteableRegistry::ErasedReader* NamedWriteableRegistry::find(
    std::type_index category, std::string_view name) const {
  auto c = categories_.find(category);
  if (c == categories_.end()) return nullptr;
  auto r = c->second.readers.find(name);
  return r == c->second.readers.end() ? nullptr : &r->second;
}

void NamedWriteableRegistry::throwUnknown(const std::string& category, std::string_view name) {
  internal::throwCorrupt("Unknown NamedWriteable [" + category + "][" + std::string(name) + "]");
}

}  // namespace wirestream
