#include "format/object_sections.hpp"


#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <new>
#include <system_error>
#include <thread>

#include "huge_pages.hpp"
#include "format/chunk_decoder.hpp"
#include "format/format_constants.hpp"
#include "platform/memory_map.hpp"

// Why two passes: the table is sized once and every section decodes straight into its slice,
// so no section's columns are copied. Sizing it needs each section's reference count, which
// only its decompressed payload tells; each payload is decompressed again in the second pass
// rather than kept between them: kept, the payloads (~15 B per object) were whole in memory
// beside the whole table, the decode's peak, and decompressing twice costs ~1% of a build's
// CPU. The table is only sized from checked, decompressed data, so a header that lies about
// its counts costs no memory (format-spec.md §7).

namespace gcsnap::format {
namespace {

struct Job {
  std::vector<uint8_t> payload;
  uint64_t first_object = 0;
  uint64_t first_reference = 0;
  uint64_t references = 0;
  Status status;
};

// Run fn(k) for k in [0, count) on up to `threads` threads, the caller's included. A thread
// that cannot be started leaves its share to the others.
template <typename Fn>
void run_jobs(size_t count, unsigned threads, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&]() noexcept {
    for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < count;) fn(k);
  };
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads && t < count; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
  } catch (const std::bad_alloc&) {
  }
  work();
  for (auto& t : pool) t.join();
}

// The first failure in file order, as a one-section-at-a-time decode would report it.
Status first_error(const std::vector<Job>& jobs) {
  for (const Job& job : jobs)
    if (!job.status) return job.status;
  return {};
}

// Fault the table's fresh pages in on all decode threads before it is zero-filled: resize's
// memset faults them one by one on the calling thread, which was 0.06-0.27 s of a 10 M-object
// decode on this VM (docs/performance.md). Best effort: without MADV_POPULATE_WRITE (Linux
// 5.14) the memset faults them as before.
void prefault(std::initializer_list<std::pair<void*, size_t>> regions, unsigned threads) {
  constexpr size_t kSlice = size_t{8} << 20;
  const uintptr_t page = static_cast<uintptr_t>(platform::page_size());
  std::vector<std::pair<uintptr_t, size_t>> slices;
  for (const auto& [data, bytes] : regions) {
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
    for (uintptr_t p = begin; p < end; p += kSlice) slices.emplace_back(p, std::min<size_t>(kSlice, end - p));
  }
  run_jobs(slices.size(), threads, [&](size_t k) {
    platform::prefault_for_write(reinterpret_cast<void*>(slices[k].first), slices[k].second);
  });
}

unsigned thread_count(unsigned asked, const std::vector<Job>& jobs, uint64_t objects) {
  constexpr uint64_t kMinObjectsPerThread = 1u << 18;  // below this, starting a thread costs more
  unsigned n = asked ? asked : std::min(4u, std::max(1u, std::thread::hardware_concurrency()));
  n = static_cast<unsigned>(std::min<uint64_t>(n, std::max<uint64_t>(1, objects / kMinObjectsPerThread)));
  return static_cast<unsigned>(std::min<size_t>(n, jobs.size()));
}

}  // namespace

Status decode_object_sections(std::span<const uint8_t> file, std::span<const SectionRef> sections,
                              const ReaderLimits& limits, unsigned threads, bool mapped, ObjectTable& out) {
  std::vector<Job> jobs(sections.size());
  uint64_t objects = 0;
  for (size_t k = 0; k < sections.size(); ++k) {
    jobs[k].first_object = objects;
    objects += sections[k].header.item_count;  // the caller checked the sum against the block end
  }
  const unsigned n_threads = thread_count(threads, jobs, objects);
  auto context = [&](size_t k) {
    return DecodeContext{jobs[k].payload, sections[k].header.item_count, sections[k].offset, limits.max_name_bytes};
  };
  std::atomic<bool> failed{false};

  // Pass 1: decompress and count each section's references.
  run_jobs(jobs.size(), n_threads, [&](size_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    Job& job = jobs[k];
    try {
      job.status = load_section(file, sections[k], limits, job.payload);
      if (job.status) {
        auto refs = reference_total(context(k));
        if (refs) job.references = *refs;
        else job.status = refs.error();
      }
      std::vector<uint8_t>().swap(job.payload);
      if (job.status && mapped) release_section_pages(file, sections[k]);
    } catch (const std::bad_alloc&) {
      job.status = make_error(ErrorCode::OutOfMemory, "decoding objects", sections[k].offset);
    }
    if (!job.status) failed.store(true, std::memory_order_relaxed);
  });
  GCSNAP_RETURN_IF_ERROR(first_error(jobs));

  uint64_t references = 0;
  for (Job& job : jobs) {
    job.first_reference = references;
    references += job.references;  // each at most its payload's size: no overflow
  }
  detail::reserve_huge(out.addresses, objects);
  detail::reserve_huge(out.type_ids, objects);
  detail::reserve_huge(out.sizes, objects);
  detail::reserve_huge(out.generations, objects);
  detail::reserve_huge(out.reference_offsets, objects + 1);
  detail::reserve_huge(out.reference_targets, references);
  prefault({{out.addresses.data(), objects * 8},
            {out.type_ids.data(), objects * 4},
            {out.sizes.data(), objects * 8},
            {out.generations.data(), objects},
            {out.reference_offsets.data(), (objects + 1) * 8},
            {out.reference_targets.data(), references * 8}},
           n_threads);
  out.addresses.resize(objects);
  out.type_ids.resize(objects);
  out.sizes.resize(objects);
  out.generations.resize(objects);
  out.reference_offsets.assign(objects + 1, uint64_t{0});
  out.reference_targets.resize(references);

  // Pass 2: decode each section into its slice of the table.
  run_jobs(jobs.size(), n_threads, [&](size_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    Job& job = jobs[k];
    const uint64_t i = job.first_object;
    ObjectSlots slots{out.addresses.data() + i, out.type_ids.data() + i, out.sizes.data() + i,
                      out.generations.data() + i, out.reference_offsets.data() + i + 1};
    try {
      job.status = load_section(file, sections[k], limits, job.payload);
      if (job.status)
        job.status = decode_objects_into(context(k), slots,
                                         {out.reference_targets.data() + job.first_reference, job.references});
    } catch (const std::bad_alloc&) {
      job.status = make_error(ErrorCode::OutOfMemory, "decoding objects", sections[k].offset);
    }
    if (!job.status) failed.store(true, std::memory_order_relaxed);
    else if (mapped) release_section_pages(file, sections[k]);
    for (uint64_t j = 0; j < sections[k].header.item_count; ++j) slots.end_offsets[j] += job.first_reference;
    std::vector<uint8_t>().swap(job.payload);
  });
  return first_error(jobs);
}

}  // namespace gcsnap::format
