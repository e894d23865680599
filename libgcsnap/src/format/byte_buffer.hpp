#pragma once
// The writer's growable byte buffer: like std::vector<uint8_t> without the zero fill, and with
// room handed out before the bytes are known. Why: the writer encoded each column into a
// scratch buffer and copied it into the section payload, and zero-filled zstd's output bound
// before compressing into it; those copies and fills were ~16 % of the writer's CPU
// (docs/performance.md, "Format, writer, reader and analyses").

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "platform/memory_map.hpp"

namespace gcsnap::format {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { release(); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ByteBuffer(ByteBuffer&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_;
      size_ = o.size_;
      capacity_ = o.capacity_;
      o.data_ = nullptr;
      o.size_ = o.capacity_ = 0;
    }
    return *this;
  }

  uint8_t* data() noexcept { return data_; }
  const uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept { size_ = 0; }

  /// Make room for N more bytes after size() and return where they start; the bytes are
  /// uninitialised and size() is unchanged until commit(). Throws std::bad_alloc.
  uint8_t* room(size_t n) {
    if (n > capacity_ - size_) grow(n);
    return data_ + size_;
  }
  /// Count N bytes written at room() as part of the buffer.
  void commit(size_t n) noexcept { size_ += n; }
  /// Keep the first N bytes (N <= size()).
  void truncate(size_t n) noexcept { size_ = n; }
  void append(const uint8_t* p, size_t n) {
    if (n == 0) return;
    std::memcpy(room(n), p, n);
    size_ += n;
  }

 private:
  // Pages of its own (on Linux mmap, grown by mremap, which moves pages instead of copying bytes),
  // not malloc's: the buffer is long-lived and large, and a large malloc block that is freed or
  // reallocated moves glibc's dynamic mmap threshold, which changed how the writer's chunk
  // columns were allocated and made the writer 2.5x slower at 2 M objects (A/B).
  void grow(size_t n) {
    size_t want = capacity_ + capacity_ / 2;
    if (want < size_ + n) want = size_ + n;
    want = (want + kPage - 1) / kPage * kPage;
    void* p = data_ ? platform::grow_pages(data_, capacity_, want) : platform::allocate_pages(want);
    if (!p) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
    capacity_ = want;
  }
  void release() noexcept {
    if (data_) platform::free_pages(data_, capacity_);
  }
  static constexpr size_t kPage = 4096;

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace gcsnap::format
