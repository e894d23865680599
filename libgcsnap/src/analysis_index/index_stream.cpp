// Reading an analysis index piece by piece (gcsnap/index_stream.hpp): the coded pieces are read
// with positioned reads, never mapped, so that the memory a pass holds is the pieces it has
// decoded (and the page cache's, which the kernel may drop), not the file. The header and the
// directory are checked as every reader checks them (index_header.hpp).

#include "gcsnap/index_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "format/xxh3_wide.hpp"

#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_header.hpp"
#include "analysis_index/index_layout.hpp"
#include "platform/file_io.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {


Error damaged(ErrorCode code, const char* detail, uint64_t offset = 0) { return make_error(code, detail, offset); }

}  // namespace

// One array's place in the file and where a pass over it stands.
struct IndexStream::Cursor {
  uint64_t begin = 0, end = 0;  // its coded bytes in the file
  uint64_t decoded = 0;         // its decoded length (§12.3, from the counts)
  uint64_t checksum = 0;        // of the decoded bytes (§12.2)
  detail::ArrayCoding coding;
  // The sequential pass.
  size_t next = 0;  // index of the next piece
  XXH3_state_t hash;
  std::vector<std::byte> piece;
  std::vector<unsigned char> coded;
  // Where each piece's length is, for read_piece (found on first use).
  std::vector<uint64_t> starts;
};

IndexStream::~IndexStream() {
  if (file_ != platform::kNoFile) platform::close_file(file_);
}

Result<std::unique_ptr<IndexStream>> IndexStream::open(const std::string& path, const IndexIdentity& expected) try {
  std::unique_ptr<IndexStream> s(new IndexStream());
  s->file_ = platform::open_file(path, platform::OpenMode::Read);
  if (s->file_ == platform::kNoFile) {
    if (errno == ENOENT) return make_error(ErrorCode::NotFound, "no analysis index");
    return Error{ErrorCode::IoError, 0, "cannot open the analysis index", errno};
  }
  platform::FileInfo st;
  if (!platform::file_info(s->file_, st)) return Error{ErrorCode::IoError, 0, "cannot stat the analysis index", errno};
  std::byte h[L::kFirstArray];
  const size_t have = static_cast<size_t>(std::min<uint64_t>(st.size, sizeof h));
  if (platform::read_at(s->file_, h, have, 0) != static_cast<int64_t>(have))
    return Error{ErrorCode::IoError, 0, "cannot read the analysis index", errno};
  auto head = detail::check_index_head({h, have}, st.size, &expected);
  if (!head) return head.error();
  const L::Counts& c = head->counts;
  s->counts_ = IndexCounts{c.nodes, c.edges, c.dependent, head->wide_offsets, (c.flags & L::kFlagSlots) != 0};
  s->cursors_.resize(L::kArrayCount);
  for (size_t a = 0; a < L::kArrayCount; ++a) {
    Cursor& k = s->cursors_[a];
    k.begin = head->begin[a];
    k.end = head->begin[a] + head->length[a];
    k.decoded = head->place.bytes[a];
    k.checksum = head->hashes[a];
    k.coding = L::coding(a, head->wide_offsets);
    XXH3_64bits_reset(&k.hash);
  }
  return s;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "opening the analysis index");
}

Result<std::span<const std::byte>> IndexStream::next_piece(IndexArray array) try {
  Cursor& k = cursors_[static_cast<size_t>(array)];
  const uint64_t done = uint64_t{k.next} * kIndexPieceBytes;
  if (done >= k.decoded) return std::span<const std::byte>{};
  auto piece = read_piece(array, k.next, k.piece);
  if (!piece) return piece.error();
  ++k.next;
  format::xxh3_update(&k.hash, piece->data(), piece->size());
  if (done + piece->size() == k.decoded && XXH3_64bits_digest(&k.hash) != k.checksum)
    return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
  return piece;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

Result<std::span<const std::byte>> IndexStream::read_piece(IndexArray array, size_t piece,
                                                           std::vector<std::byte>& buffer) try {
  const size_t a = static_cast<size_t>(array);
  Cursor& k = cursors_[a];
  const uint64_t first = uint64_t{piece} * kIndexPieceBytes;
  if (first >= k.decoded) return make_error(ErrorCode::InvalidArgument, "no such analysis index piece");
  if (Status s = find_pieces(a); !s.is_ok()) return s.error();
  const uint64_t at = k.starts[piece];
  const uint64_t end = piece + 1 < k.starts.size() ? k.starts[piece + 1] : k.end;
  const size_t len = static_cast<size_t>(end - at - 4);
  k.coded.resize(len);
  if (platform::read_at(file_, k.coded.data(), len, at + 4) != static_cast<int64_t>(len))
    return Error{ErrorCode::IoError, at, "cannot read the analysis index", errno};
  buffer.resize(static_cast<size_t>(std::min<uint64_t>(kIndexPieceBytes, k.decoded - first)));
  static_assert(kIndexPieceBytes == detail::kFrameBytes);
  if (!detail::decode_frame(k.coded, piece, k.coding,
                            {reinterpret_cast<unsigned char*>(buffer.data()), buffer.size()}))
    return damaged(ErrorCode::CorruptSection, "analysis index piece does not decode", at);
  return std::span<const std::byte>(buffer);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

// The offsets of ARRAY's pieces in the file (detail::locate_pieces over positioned reads of
// their u32 lengths).
Status IndexStream::find_pieces(size_t array) {
  Cursor& k = cursors_[array];
  if (!k.starts.empty() || k.decoded == 0) return Status::ok();
  uint64_t failed_at = k.begin;
  const auto length_at = [&](uint64_t at) -> std::optional<uint32_t> {
    std::byte len[4];
    failed_at = k.begin + at;
    if (platform::read_at(file_, len, 4, k.begin + at) != 4) return std::nullopt;
    return L::load<uint32_t>(len);
  };
  std::vector<uint64_t> starts;
  switch (detail::locate_pieces(k.end - k.begin, k.decoded, length_at, starts)) {
    case detail::PieceWalk::Ok: break;
    case detail::PieceWalk::Short:
      return damaged(ErrorCode::Truncated, "analysis index array shorter than its pieces", failed_at);
    case detail::PieceWalk::Long:
      return damaged(ErrorCode::CorruptSection, "analysis index array longer than its pieces", failed_at);
    case detail::PieceWalk::Unreadable:
      return Error{ErrorCode::IoError, failed_at, "cannot read the analysis index", errno};
  }
  for (uint64_t& at : starts) at += k.begin;
  k.starts = std::move(starts);
  return Status::ok();
}

}  // namespace gcsnap
