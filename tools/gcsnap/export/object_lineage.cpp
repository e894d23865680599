#include "export/object_lineage.hpp"

#include <algorithm>
#include <utility>

#include "gcsnap/object_identity.hpp"

namespace gcsnap::cli {

Status ObjectLineage::next_walk(const Recording& rec, size_t gc_pos, std::vector<uint64_t> addresses,
                                std::vector<Generation> generations) {
  walk_gcs_.push_back(rec.gcs()[gc_pos].info.gc_number);
  std::vector<uint32_t> first_walk(addresses.size(), static_cast<uint32_t>(walk_gcs_.size() - 1));
  std::vector<uint64_t> first_address(addresses.begin(), addresses.end());
  followed_ = 0;
  bool complete = has_previous_;
  for (size_t i = previous_index_ + 1; complete && i <= gc_pos; ++i) complete = has_complete_transition(rec, i);
  if (complete) {
    auto mapper = map_objects(rec, previous_index_, gc_pos, addresses_, generations_);
    if (!mapper && mapper.error().code != ErrorCode::InconsistentData) return mapper.error();
    if (mapper) {
      // (address now, object of the previous walk) for the survivors, merged with ADDRESSES.
      std::vector<std::pair<uint64_t, uint32_t>> now;
      now.reserve(mapper->alive_count());
      for (size_t i = 0; i < addresses_.size(); ++i)
        if (mapper->is_alive(i)) now.emplace_back(mapper->addresses()[i], static_cast<uint32_t>(i));
      std::sort(now.begin(), now.end());
      size_t k = 0;
      for (size_t j = 0; j < addresses.size() && k < now.size(); ++j) {
        while (k < now.size() && now[k].first < addresses[j]) ++k;
        if (k < now.size() && now[k].first == addresses[j]) {
          first_walk[j] = first_walk_[now[k].second];
          first_address[j] = first_address_[now[k].second];
          ++followed_;
        }
      }
    }
  }
  first_walk_ = std::move(first_walk);
  first_address_ = std::move(first_address);
  addresses_ = std::move(addresses);
  generations_ = std::move(generations);
  previous_index_ = gc_pos;
  has_previous_ = true;
  return Status::ok();
}

}  // namespace gcsnap::cli
