#include "tools/npz.h"

#include <zip.h>

#include <memory>

#include "ir/literal.h"

namespace vkxla {
namespace {

struct ArchiveCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct MemberCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};

}  // namespace

StatusOr<std::vector<NpzMember>> ReadNpz(const std::string& path) {
  int error = 0;
  std::unique_ptr<zip_t, ArchiveCloser> archive(zip_open(path.c_str(), ZIP_RDONLY, &error));
  if (!archive) {
    zip_error_t e;
    zip_error_init_with_code(&e, error);
    Status s = InvalidArgument(path + ": not a readable .npz archive (" + zip_error_strerror(&e) + ")");
    zip_error_fini(&e);
    return s;
  }
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count > 4096) return InvalidArgument(path + ": " + std::to_string(count) + " members is more than an .npz input may hold");
  std::vector<NpzMember> members;
  int64_t total = 0;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive.get(), i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_NAME))
      return InvalidArgument(path + ": member " + std::to_string(i) + " cannot be read");
    // The sizes are bounded before anything is allocated for them.
    total += static_cast<int64_t>(std::min<zip_uint64_t>(st.size, kMaxLiteralBytes + 1));
    if (st.size > static_cast<zip_uint64_t>(kMaxLiteralBytes) || total > kMaxLiteralBytes)
      return ResourceExhausted(path + ": member " + st.name + " takes more than an input may hold");
    std::unique_ptr<zip_file_t, MemberCloser> file(zip_fopen_index(archive.get(), i, 0));
    if (!file) return InvalidArgument(path + ": member " + st.name + ": " + zip_strerror(archive.get()));
    NpzMember m{st.name, std::string(static_cast<size_t>(st.size), '\0')};
    const zip_int64_t got = m.bytes.empty() ? 0 : zip_fread(file.get(), m.bytes.data(), st.size);
    if (got != static_cast<zip_int64_t>(st.size))
      return InvalidArgument(path + ": member " + m.name + " is damaged (" + zip_file_strerror(file.get()) + ")");
    members.push_back(std::move(m));
  }
  if (members.empty()) return InvalidArgument(path + ": the .npz archive holds no arrays");
  return members;
}

}  // namespace vkxla
