#pragma once
// The page's string table and integer arrays as JSON, shared by the report's data files.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "output/output.hpp"

namespace gcsnap::cli {

// Strings the page looks up by index (type names, field names), each written once.
class StringTable {
 public:
  size_t intern(std::string_view text) {
    auto [it, added] = index_.try_emplace(std::string(text), order_.size());
    if (added) order_.push_back(&it->first);
    return it->second;
  }
  std::string json() const {
    std::string out = "[";
    for (size_t i = 0; i < order_.size(); ++i) {
      if (i) out += ',';
      out += '"';
      out += json_escape(*order_[i]);
      out += '"';
    }
    return out + "]";
  }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<const std::string*> order_;
};

template <typename T>
inline std::string json_array(const std::vector<T>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

}  // namespace gcsnap::cli
