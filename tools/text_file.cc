#include "tools/text_file.h"

#include <fstream>

namespace vkxla {

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return InvalidArgument("cannot write " + path);
  return OkStatus();
}

}  // namespace vkxla
