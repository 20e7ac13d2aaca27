// A small cursor over attribute text (sharding and mesh attributes, as
// StableHLO and HLO text write them).
#pragma once

#include <cctype>
#include <string>

#include "ir/numbers.h"
#include "vkxla/status.h"

namespace vkxla {

// A small cursor over attribute text: no input it reads may run past its end.
struct AttributeScan {
  const std::string& s;
  size_t p = 0;
  void Space() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  bool Eat(char c) {
    Space();
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool Eat(const std::string& word) {
    Space();
    if (s.compare(p, word.size(), word) == 0) {
      p += word.size();
      return true;
    }
    return false;
  }
  StatusOr<std::string> Quoted() {
    Space();
    if (p >= s.size() || s[p] != '"') return InvalidArgument("expected a quoted axis name in " + s);
    const size_t close = s.find('"', p + 1);
    if (close == std::string::npos) return InvalidArgument("an unterminated axis name in " + s);
    std::string name = s.substr(p + 1, close - p - 1);
    p = close + 1;
    return name;
  }
  StatusOr<int64_t> Integer() {
    Space();
    const size_t begin = p;
    if (p < s.size() && s[p] == '-') ++p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) ++p;
    std::optional<int64_t> v = ParseInt64(s.substr(begin, p - begin));
    if (!v) return InvalidArgument("expected an integer at \"" + s.substr(begin, 16) + "\" in " + s);
    return *v;
  }
  // Past the bracketed group opening here (`open` already eaten).
  Status Skip(char open, char close) {
    int depth = 1;
    while (p < s.size() && depth > 0) {
      if (s[p] == open) ++depth;
      if (s[p] == close) --depth;
      ++p;
    }
    if (depth != 0) return InvalidArgument("unbalanced " + std::string(1, open) + " in " + s);
    return OkStatus();
  }
};

}  // namespace vkxla
